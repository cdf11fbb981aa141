"""The differential tier: the linter's verdict on a shape against what the real engines did with it (issue 31).

Pure core, no sandbox: :mod:`.cases` (fixtures, upstream examples, split into cases),
:mod:`.generate` (seeded shapes from a fleet model), :mod:`.compare` (a lint result
and a trial's outcomes in, agree / miss / false alarm per rule out), :mod:`.known`
(the documented disagreements) and :mod:`.tally` (agreement per rule). The trials
themselves run in :mod:`gpufleet.sandbox.difftrial`; tests/e2e/test_difftier_e2e.py
and bench/difftier_bench.py drive both.
"""
