"""Inputs: generated key sets, the real MCP corpus, key records read from the command line."""
