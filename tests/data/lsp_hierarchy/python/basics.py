def helper(value: int) -> int:
    return value + 1


def step_a(value: int) -> int:
    first = helper(value)
    return helper(first)


def countdown(n: int) -> int:
    if n <= 0:
        return 0
    return countdown(n - 1)
