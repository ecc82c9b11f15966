from basics import helper, step_a


def step_b(value: int) -> int:
    return helper(value) * 2


def run_all(value: int) -> int:
    total = step_a(value) + step_b(value)
    print(total)
    return max(total, 0)


def main_entry() -> None:
    run_all(3)
