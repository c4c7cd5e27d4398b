from typing import Any

from ._baton import (
    BackendUnavailableError as BackendUnavailableError,
    DeviceError as DeviceError,
    Error as Error,
    OutOfMemoryError as OutOfMemoryError,
    Runtime as Runtime,
    UsageError as UsageError,
    device_spec_help as device_spec_help,
    devices as devices,
)

POLICIES: tuple[str, ...]

def bench(*, echo: bool = False, **options: Any) -> dict[str, Any]: ...
def sweep(*, echo: bool = False, **options: Any) -> dict[str, Any]: ...
def train(*, echo: bool = False, **options: Any) -> dict[str, Any]: ...
