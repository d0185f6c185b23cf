"""
Monitoring a model while the prevalence moves
=============================================

Six monthly test sets of one credit-default model (the bundled example of
``beyondchance example``): the share of defaults rises from 3% to 30% and, in one month,
the model itself is degraded. :func:`beyondchance.compare` puts the months side by side;
the nominal metric rises with the prevalence, its outperformance score points at the month
where the model changed.
"""

import matplotlib.pyplot as plt

import beyondchance as bc
from beyondchance.report.example import credit_default_example

frame = credit_default_example(random_state=0)
months = {m: (g["default"].to_numpy(), g["score"].to_numpy()) for m, g in frame.groupby("month", sort=True)}
comparison = bc.compare(months, n_resamples=300, random_state=0)
for line in comparison.verdict:
    print("•", line)

# %%
# Each month's value of the comparison's focus metric and its outperformance score, with
# the reference month's beside them:

changes = [c for c in comparison.changes if c.metric == comparison.focus]
for c in changes:
    print(f"{c.test_set}: {c.metric} {c.value:.3f} (reference {c.reference_value:.3f}), "
          f"OPS {c.ops:.3f} (reference {c.reference_ops:.3f}): {c.direction}")

prevalence = [float(r.prevalence) for r in comparison.reports]
names = [r.name for r in comparison.reports]
fig, ax = plt.subplots(figsize=(8, 3.6))
ax.plot(names, prevalence, "k:", label="prevalence")
ax.plot([c.test_set for c in changes], [c.value for c in changes], "o-", label=comparison.focus)
ax.plot([c.test_set for c in changes], [c.ops for c in changes], "s-", label=f"OPS of {comparison.focus}")
ax.set_ylim(0, 1.02)
ax.set_xlabel("month (the first is the reference)")
ax.legend(fontsize=8)
fig.tight_layout()
