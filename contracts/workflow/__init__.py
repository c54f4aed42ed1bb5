"""What modules and the kernel know of the workflow service: its engine, handlers and data."""

from contracts.workflow.engine import WorkflowEngine
from contracts.workflow.handlers import (
    DataProvider,
    ReconcilingHandler,
    StepControl,
    WorkflowHandler,
)
from contracts.workflow.subject import WorkflowSubject
from contracts.workflow.types import (
    FailureView,
    HistoryEntry,
    InstanceView,
    StartRequest,
    StepInput,
    StepResult,
    SubjectRef,
    TaskMulti,
    TaskView,
    TransitionEvent,
)

__all__ = [
    "DataProvider",
    "FailureView",
    "HistoryEntry",
    "InstanceView",
    "ReconcilingHandler",
    "StartRequest",
    "StepControl",
    "StepInput",
    "StepResult",
    "SubjectRef",
    "TaskMulti",
    "TaskView",
    "TransitionEvent",
    "WorkflowEngine",
    "WorkflowHandler",
    "WorkflowSubject",
]
