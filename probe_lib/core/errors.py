"""The one exception type the CLI turns into a one-line message and exit code 2."""


class InputError(ValueError):
    """Input the kit cannot use; the message names what was wrong and how to fix it."""
