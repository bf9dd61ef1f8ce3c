"""Layer 5, making the book: planning pages, executing them in kernels, digests, jupyter-book, and
publishing the outputs safely. Imports every layer below.
"""
