"""The errors a build can end with, in a module the command line can import cheaply."""


class BuildError(RuntimeError):
    """A build that failed; the previous book is untouched."""


class UsageError(ValueError):
    """A build asked for something that does not exist or is not allowed; nothing was written."""


class ChapterError(RuntimeError):
    """A page that failed to execute; the message names the page and the cell."""
