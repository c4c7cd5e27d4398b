from typing import Any, Callable, Iterable, Optional

import torch

class Balanced:
    optimizer: torch.optim.Optimizer
    def __init__(
        self,
        model: torch.nn.Module,
        make_optimizer: Callable[[Iterable[torch.nn.Parameter]], torch.optim.Optimizer],
        devices: str = "auto",
        policy: str = "ws",
        micro_batch: Optional[int] = None,
        autocast: Optional[torch.dtype] = None,
        trace: Optional[str] = None,
        report: Optional[str] = None,
        fault: Optional[str] = None,
        perf_model_file: Optional[str] = None,
        cuda_graphs: bool = False,
        shares: Optional[Any] = None,
    ) -> None: ...
    @property
    def module(self) -> torch.nn.Module: ...
    @property
    def replicas(self) -> list[torch.nn.Module]: ...
    @property
    def devices(self) -> list[dict[str, Any]]: ...
    def step(
        self,
        inputs: torch.Tensor,
        targets: torch.Tensor,
        loss_fn: Callable[[Any, torch.Tensor], torch.Tensor],
    ) -> float: ...
    def stats(self) -> dict[str, Any]: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Balanced": ...
    def __exit__(self, *exc: Any) -> None: ...
