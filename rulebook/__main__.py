"""`python -m rulebook` runs the same command as `rulebook`."""
from .cli import main

main(prog_name="rulebook")
