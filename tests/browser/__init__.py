"""The browser tier: the built book read in Debian's Chromium at a laptop's and a phone's width."""
