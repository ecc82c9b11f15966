class Store:
    def __init__(self) -> None:
        self.items: list[str] = []


def make_store() -> Store:
    return Store()
