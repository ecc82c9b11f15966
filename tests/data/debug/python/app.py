"""Fixture for tests/it/debug.rs: breakpoints, steps and variables at known lines."""
import sys


def add(a, b):
    total = a + b
    return total


def main():
    numbers = [1, 2, 3]
    label = "sum"
    result = add(numbers[0], numbers[2])
    print(f"{label}={result}")
    print("to stderr", file=sys.stderr)
    return result


if __name__ == "__main__":
    code = main()
    sys.exit(code)
