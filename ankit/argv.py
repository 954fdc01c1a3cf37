"""Command-line parsing shared by ankit and its subcommands: argparse, with errors in one line."""

import argparse


class Parser(argparse.ArgumentParser):
    """argparse, with errors in one line."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")
