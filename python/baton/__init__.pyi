from typing import Any

from ._baton import (
    BackendUnavailableError as BackendUnavailableError,
    DeviceError as DeviceError,
    Error as Error,
    OutOfMemoryError as OutOfMemoryError,
    RateWindow as RateWindow,
    Runtime as Runtime,
    UsageError as UsageError,
    device_spec_help as device_spec_help,
    devices as devices,
    split_by_rates as split_by_rates,
)

POLICIES: tuple[str, ...]

def bench(*, echo: bool = False, **options: Any) -> dict[str, Any]: ...
def sweep(*, echo: bool = False, **options: Any) -> dict[str, Any]: ...
def train(*, echo: bool = False, **options: Any) -> dict[str, Any]: ...
