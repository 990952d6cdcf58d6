"""The ``diffcompare`` command line: parses arguments, calls the library, picks a renderer."""
