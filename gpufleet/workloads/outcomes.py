"""What the real engines can do with a gang: the outcome vocabulary of ``gpufleet try`` and of the rules' predictions.

One owner for the names. :mod:`gpufleet.sandbox.outcome` classifies a trial into one of
them (``gpufleet try --format json``'s ``outcome``); every rule declares, in
``Rule.predicts`` (:mod:`gpufleet.rules.api`), which of them its finding foretells, and
the differential tier (:mod:`gpufleet.difftier.compare`) compares the two. The core owns
the vocabulary so that rules can name outcomes without importing the sandbox.
"""

from __future__ import annotations

NOT_RUNNABLE = "notRunnable"
"""The sandbox serves no API for a kind in the manifests (the operator that runs it does not run there): nothing was
submitted and nothing is judged; the result names the kind."""
REFUSED = "refused"
"""An admission webhook, an admission policy or the API server refused a manifest."""
RAN_WHOLE = "ranWhole"
"""Every rank Running."""
NEVER_ADMITTED = "neverAdmitted"
"""No pod holds a node, for the engines' reasons (quota, missing queue or priority class, a PodGroup never ready)."""
GATED = "gated"
"""No pod holds a node: pods carry scheduling gates, or a job is suspended and nothing will unsuspend it."""
PARTLY_BOUND = "partlyBound"
"""Some pods hold a node, not every rank runs."""
RESTARTED_WHOLE = "restartedWhole"
"""After one rank failed: every rank's pod is new and Running (a job-level restart)."""
RANK_REPLACED_ALONE = "rankReplacedAlone"
"""After one rank failed: it got a new pod while the others kept theirs (the others wait on a dead peer)."""
RANK_NOT_REPLACED = "rankNotReplaced"
"""After one rank failed: the others run on and nothing replaces it."""
STOPPED_WHOLE = "stoppedWhole"
"""After one rank failed: no pod of the gang is left alive (the job failed as a whole)."""

NOTHING_RESTARTS = (
    "nothing restarts a job that failed as a whole: a failed batch Job stays Failed (BackoffLimitExceeded). "
    "What would restart the gang: a JobSet whose failurePolicy has a rule with action RestartJobSet (and "
    "maxRestarts above 0), a Volcano Job with the policy PodFailed -> RestartJob, or a controller that "
    "resubmits the job (resuming from its checkpoint)"
)
"""What ``stoppedWhole`` leaves a user to do: said by GANG204 (whose fix for a plain Job leads there) and by
``gpufleet try`` when a failed rank stops the gang, in these words."""

START_OUTCOMES = (REFUSED, RAN_WHOLE, NEVER_ADMITTED, GATED, PARTLY_BOUND)
FAILURE_OUTCOMES = (RESTARTED_WHOLE, RANK_REPLACED_ALONE, RANK_NOT_REPLACED, STOPPED_WHOLE, PARTLY_BOUND)
OUTCOMES = frozenset(START_OUTCOMES + FAILURE_OUTCOMES + (NOT_RUNNABLE,))

SAFE = frozenset({RAN_WHOLE, RESTARTED_WHOLE, STOPPED_WHOLE})
"""What a gang-safe job does: runs whole; after a failed rank, restarts whole or stops whole (no GPUs held by a
broken gang). Any other outcome is a hazard some rule should have foretold."""
NEVER_WHOLE = frozenset({PARTLY_BOUND, NEVER_ADMITTED, GATED})
"""The gang does not run whole: part of it holds GPUs, or none of it ever starts."""
BROKEN_GANG_RUNS_ON = frozenset({RANK_REPLACED_ALONE, RANK_NOT_REPLACED})
"""After a failed rank the others keep their pods (and GPUs): replaced alone, or not at all."""
NOT_JUDGED: frozenset[str] = frozenset()
"""A rule whose finding no engine outcome shows (naming, observability, platform configuration, timing or
contention the trial cannot create): the differential tier leaves it out of agreement."""
