"""The graphmem command: its entry point, commands, console input/output and the demo.
Imports anything of graphmem (it is the top layer)."""
