"""The committed book checked against an independent recomputation from the raw results, and the tests that hold for every claim of any registry."""
