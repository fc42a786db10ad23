"""The command line: argument parsing and printing only; each command calls one function below it."""
