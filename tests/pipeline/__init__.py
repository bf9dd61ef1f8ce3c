"""The build tier: real builds, kernels, the preview, Sphinx, the command line end to end, and what a kill, a full disk or a hostile input does to them."""
