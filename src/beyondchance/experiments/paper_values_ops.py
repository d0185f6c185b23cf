"""The numbers printed in the Outperformance Score paper, transcribed for comparison.

Source: N. Zhao, T. Bui, J. Y. Yu, K. Dzieciolowski, "Outperformance Score: A Universal
Standardization Method for Confusion-Matrix-Based Classification Performance Metrics",
Pattern Recognition (preprint), section 4, Tables 4–9 (and the in-text numbers of
Examples 1–3 and Figs. 1, 3).  Values are copied as printed (three decimals, some
trailing zeros dropped by the authors); the prevalences are the rounded values printed
in the table headers (π = 0.091, 0.19, 0.3 for Heart Disease; 0.112, 0.203, 0.3 for
Loan Default).

The data sets behind them — the 2015 BRFSS Heart Disease Health Indicators (Kaggle,
Teboul 2022; 253,680 records) and the Kaggle Loan Default data (Kotra 2019; 255,347
records) — are not available offline; every OPS below is recomputed from its printed
(μ, π), which is all OPS depends on.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "CITATION",
    "DATASETS",
    "SETS",
    "TABLE4",
    "TABLE5",
    "TABLE6_7",
    "TABLE8_9",
    "TEXT_CLAIMS",
    "K_RECOMMEND",
]

CITATION: Final = (
    "Zhao, Bui, Yu & Dzieciolowski, Outperformance Score: A Universal Standardization Method "
    "for Confusion-Matrix-Based Classification Performance Metrics, section 4, Tables 4-9"
)

#: the paper's two data sets and their three test sets each (Table 4 column order)
DATASETS: Final = ("heart_disease", "loan_default")
SETS: Final = {
    "heart_disease": ("general", "elder", "hospital"),
    "loan_default": ("general", "low_income", "risky"),
}

#: Table 4: test-set size and prevalence as printed.
TABLE4: Final = {
    ("heart_disease", "general"): {"n": 9000, "prevalence": 0.091},
    ("heart_disease", "elder"): {"n": 9043, "prevalence": 0.19},
    ("heart_disease", "hospital"): {"n": 9206, "prevalence": 0.3},
    ("loan_default", "general"): {"n": 10000, "prevalence": 0.112},
    ("loan_default", "low_income"): {"n": 10108, "prevalence": 0.203},
    ("loan_default", "risky"): {"n": 10063, "prevalence": 0.3},
}

#: Table 5 (threshold t = 0.19): f1, OPS(f1), MCC, OPS(MCC).
TABLE5: Final = {
    ("heart_disease", "general"): {"f1": 0.408, "ops_f1": 0.892, "mcc": 0.348, "ops_mcc": 0.874},
    ("heart_disease", "elder"): {"f1": 0.453, "ops_f1": 0.799, "mcc": 0.3, "ops_mcc": 0.779},
    ("heart_disease", "hospital"): {"f1": 0.614, "ops_f1": 0.85, "mcc": 0.468, "ops_mcc": 0.859},
    ("loan_default", "general"): {"f1": 0.361, "ops_f1": 0.825, "mcc": 0.268, "ops_mcc": 0.798},
    ("loan_default", "low_income"): {"f1": 0.475, "ops_f1": 0.806, "mcc": 0.316, "ops_mcc": 0.787},
    ("loan_default", "risky"): {"f1": 0.514, "ops_f1": 0.735, "mcc": 0.344, "ops_mcc": 0.78},
}

#: Tables 6 (Heart Disease) and 7 (Loan Default): AUC(PRC), OPS(AUC), precision at
#: recall 0.9, OPS(precision).
TABLE6_7: Final = {
    ("heart_disease", "general"): {"pr_auc": 0.354, "ops_pr_auc": 0.869, "precision_r90": 0.183, "ops_precision_r90": 0.901},
    ("heart_disease", "elder"): {"pr_auc": 0.42, "ops_pr_auc": 0.797, "precision_r90": 0.264, "ops_precision_r90": 0.815},
    ("heart_disease", "hospital"): {"pr_auc": 0.688, "ops_pr_auc": 0.909, "precision_r90": 0.495, "ops_precision_r90": 0.902},
    ("loan_default", "general"): {"pr_auc": 0.316, "ops_pr_auc": 0.808, "precision_r90": 0.151, "ops_precision_r90": 0.784},
    ("loan_default", "low_income"): {"pr_auc": 0.485, "ops_pr_auc": 0.838, "precision_r90": 0.278, "ops_precision_r90": 0.784},
    ("loan_default", "risky"): {"pr_auc": 0.581, "ops_pr_auc": 0.832, "precision_r90": 0.376, "ops_precision_r90": 0.813},
}

#: the recommendation size of Tables 8–9
K_RECOMMEND: Final = 500

#: Tables 8 (Heart Disease) and 9 (Loan Default): AUC and NAUC of the lift curve,
#: OPS(AUC or NAUC), precision and lift among the top K = 500, OPS(lift or precision).
TABLE8_9: Final = {
    ("heart_disease", "general"): {"lift_auc": 2.278, "lift_nauc": 0.67, "ops_lift_auc": 0.915,
                                   "precision_k": 0.418, "lift_k": 4.61, "ops_lift_k": 0.84},
    ("heart_disease", "elder"): {"lift_auc": 1.745, "lift_nauc": 0.656, "ops_lift_auc": 0.841,
                                 "precision_k": 0.558, "lift_k": 2.937, "ops_lift_k": 0.782},
    ("heart_disease", "hospital"): {"lift_auc": 1.806, "lift_nauc": 0.82, "ops_lift_auc": 0.929,
                                    "precision_k": 0.83, "lift_k": 2.766, "ops_lift_k": 0.852},
    ("loan_default", "general"): {"lift_auc": 1.915, "lift_nauc": 0.601, "ops_lift_auc": 0.849,
                                  "precision_k": 0.432, "lift_k": 3.843, "ops_lift_k": 0.805},
    ("loan_default", "low_income"): {"lift_auc": 1.807, "lift_nauc": 0.696, "ops_lift_auc": 0.869,
                                     "precision_k": 0.686, "lift_k": 3.387, "ops_lift_k": 0.832},
    ("loan_default", "risky"): {"lift_auc": 1.621, "lift_nauc": 0.736, "ops_lift_auc": 0.857,
                                "precision_k": 0.788, "lift_k": 2.627, "ops_lift_k": 0.821},
}

#: Numbers stated in the text of sections 2.5 and 3 (Example 1, Fig. 1, Example 3, Fig. 3).
TEXT_CLAIMS: Final = {
    # Example 1: F1 of the trivial positive classifier 2π/(1+π)
    "tpc_f1_pi_0.5": 0.6667,
    "tpc_f1_pi_0.1": 0.1818,
    # Example 3 / Fig. 3(a): at π = 0.1 an AUC(PRC) of 0.6 beats 96% of classifiers
    "ops_pr_auc_0.6_pi_0.1": 0.96,
    # Fig. 3(b): at π = 0.1 and recall 0.8, precision 0.5 beats 97% of classifiers
    "ops_precision_0.5_at_recall_0.8_pi_0.1": 0.97,
}
