"""The evaluation report: markdown tables with paired-bootstrap CIs, and plots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .protocol import counterparts


def _fmt(ci: tuple[float, float, float], scale: float = 100.0) -> str:
    mean, lo, hi = ci
    return f"{mean * scale:.1f} [{lo * scale:.1f}, {hi * scale:.1f}]"


COLUMNS = ["em", "f1", "substring", "context_following", "context_following_with_others", "memorization",
           "context_following_known",
           "memorization_known", "substring_known", "substring_without_abstention", "evidence_support", "abstention",
           "false_abstention",
           "citation_precision", "citation_recall", "model_citation_precision", "model_citation_recall",
           "loglik_accuracy", "generation_accuracy", "generation_memorization", "hijacked",
           "hijacked_without_abstention", "answerable_withheld", "unanswerable_withheld", "plausible_answer", "conflict_flagged",
           "conflicting_answer", "true_passage_dropped_ranked_first"]

DELTA_ALSO = ["hijacked"]  # the --inject rows: their own Δ column beside the main metric's


def to_markdown(report: dict[str, Any]) -> str:
    lines = [f"Model: {report['model']}, split: {report['split']}. Values are % with paired-bootstrap 95% CIs."]
    for dataset, d in report["datasets"].items():
        present = [c for c in COLUMNS if any(c in m["metrics"] for m in d["methods"].values())]
        deltas = [d["main_metric"]] + [c for c in DELTA_ALSO if c in present]  # every Δ is in report.json
        tuned = (f"settings chosen on every file's validation rows pooled, {d['n_validation']} of them this file's"
                 if d.get("pooled") else f"tuned on {d['n_validation']} validation rows" if d["n_validation"]
                 else "not tuned: the middle setting of every grid")
        cost = any("abstention_cost" in m for m in d["methods"].values())  # substring lost to withheld answers
        lines += ["", f"### {dataset} (n = {d['n_test']}, {tuned})", "",
                  "| method | params | " + " | ".join(present) + "".join(f" | Δ {c} vs standard" for c in deltas)
                  + (" | Δ substring from abstention" if cost else "") + " | avg tokens |",
                  "|---" * (len(present) + len(deltas) + 3 + cost) + "|"]
        for method, m in d["methods"].items():
            cells = [_fmt(m["metrics"][c]) if c in m["metrics"] else "–" for c in present]
            diffs = m.get("diffs_vs_standard", {})
            cells += [_fmt(diffs[c]) if c in diffs else "–" for c in deltas]
            cells += [_fmt(m["abstention_cost"]) if "abstention_cost" in m else "–"] if cost else []
            tokens = f"{m['avg_tokens']:.1f}" if m["avg_tokens"] is not None else "–"
            lines.append(f"| {method} | {_params(m['params'])} | " + " | ".join(cells) + f" | {tokens} |")
        lines += _option_deltas(d, present)
        lines += _separation(d)
    for dataset, tables in report.get("abstention", {}).items():
        for method, rows in tables.items():
            lines += ["", f"### Support threshold on {dataset}'s validation rows: {method} (withheld, %; right "
                      f"answers: {rows[0]['right']} of {rows[0]['rows']})", "",
                      "| threshold | unanswerable | right answers | right answers, points of substring | "
                      "all answers |", "|---|---|---|---|---|"]
            lines += [f"| {r['threshold']:.2f} | {_share(r['unanswerable_withheld'])} | {_share(r['right_withheld'])} | "
                      f"{_share(r.get('right_withheld_points'))} | {_share(r['answerable_withheld'])} |" for r in rows]
    if report.get("pooled"):
        lines += _pooled_markdown(report["pooled"])
    if report.get("latency"):
        lines += ["", "### Latency and memory (one example, same run; memory in a subprocess per method, peak reset "
                  "after loading)", "",
                  "| method | prefill ms | decode ms/token | tokens/s | loaded MB | peak MB while generating | "
                  "added by generation MB |", "|---|---|---|---|---|---|---|"]
        for method, t in report["latency"].items():
            lines.append(f"| {method} | {t['prefill_ms']:.0f} | {t['decode_ms_per_token']:.1f} | "
                         f"{t['tokens_per_s']:.1f} | {t['loaded_mb']:.0f} | {t['peak_mb']:.0f} | {t['extra_mb']:.1f} |")
    return "\n".join(lines) + "\n"


def _separation(d: dict[str, Any]) -> list[str]:
    """Each method's support AUROC: right answers against wrong ones, and against rows no passage answers."""
    rows = [(method, m["support_auroc"]) for method, m in d["methods"].items() if m.get("support_auroc")]
    rows = [(method, a) for method, a in rows if any(a.values())]
    if not rows:
        return []

    def cell(ci: tuple[float, float, float] | None) -> str:
        return "–" if ci is None else f"{ci[0]:.2f} [{ci[1]:.2f}, {ci[2]:.2f}]"

    return ["", "Support AUROC (0.5 is chance; bootstrap 95% CI): right answers against wrong ones, and against rows "
            "no passage answers:", "", "| method | right vs wrong | right vs unanswerable |", "|---|---|---|",
            *(f"| {method} | {cell(a['right_vs_wrong'])} | {cell(a['right_vs_unanswerable'])} |" for method, a in rows)]


def _option_deltas(d: dict[str, Any], present: list[str]) -> list[str]:
    """What each option and each research ablation changes: a method's paired Δs against its counterparts in the run
    (the same method without its last option, ``grounded_contrast+extractive`` against ``grounded_contrast``; an
    ablation against the default with the same options)."""
    pairs = [(method, base, m) for method, m in d["methods"].items() for base in counterparts(method)
             if base in m.get("diffs_vs", {})]
    if not pairs:
        return []
    shown = [c for c in dict.fromkeys([d["main_metric"], "em", "f1", *DELTA_ALSO]) if c in present]
    lines = ["", "Each option against the same method without it, each ablation against the default (paired Δ):", "",
             "| method | against | " + " | ".join(f"Δ {c}" for c in shown) + " |", "|---" * (len(shown) + 2) + "|"]
    for method, base, m in pairs:
        diffs = m["diffs_vs"][base]
        cells = [_fmt(diffs[c]) if c in diffs else "–" for c in shown]
        lines.append(f"| {method} | {base} | " + " | ".join(cells) + " |")
    return lines


def _pooled_markdown(pooled: dict[str, Any]) -> list[str]:
    """``--pool``: every setting's validation score per file (the chosen one in bold), then each margin on
    validation rows beside the same margin on test rows and the share of it that held."""
    settings = pooled["settings"]
    names = list(next(iter(settings.values()))["table"][0]["per_set"])
    lines = ["", "### Settings chosen on the pooled validation rows (main metric, %; each file weighs the same)", "",
             "| method | setting | " + " | ".join(names) + " | mean |", "|---" * (len(names) + 3) + "|"]
    for spec, entry in settings.items():
        for row in entry["table"]:
            mark = "**" if row["params"] == entry["params"] else ""
            shares = " | ".join(_share(row["per_set"][n]) for n in names)
            lines.append(f"| {spec} | {mark}{_params(row['params'])}{mark} | {shares} | {_share(row['mean'])} |")
    lines += ["", "### Margins at the pooled settings: validation rows, then test rows (paired 95% CI)", "",
              "| methods | data set | validation Δ | test Δ | share kept |", "|---|---|---|---|---|"]
    for pair, rows in pooled["margins"].items():
        for name, m in rows.items():
            kept = "–" if m["kept"] is None else f"{m['kept']:.2f}"
            lines.append(f"| {pair} | {name} | {100 * m['validation']:+.1f} | {_fmt(m['test'])} | {kept} |")
    return lines


def plot(report: dict[str, Any], out_dir: Path) -> None:
    """metrics with CI bars per dataset, and seconds/example vs context-following."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for dataset, d in report["datasets"].items():
        main = d["main_metric"]
        names = list(d["methods"])
        means = [d["methods"][n]["metrics"][main][0] * 100 for n in names]
        err = [[(d["methods"][n]["metrics"][main][0] - d["methods"][n]["metrics"][main][1]) * 100 for n in names],
               [(d["methods"][n]["metrics"][main][2] - d["methods"][n]["metrics"][main][0]) * 100 for n in names]]
        fig, ax = plt.subplots(figsize=(max(5, len(names) * 0.9), 3.5))
        ax.bar(names, means, yerr=err, capsize=4, color="#4C72B0")
        ax.set_ylabel(f"{main} (%)")
        ax.set_title(f"{dataset} ({report['model']}, n={d['n_test']}, 95% CI)")
        plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
        fig.tight_layout()
        fig.savefig(out_dir / f"{dataset}_{main}.png", dpi=120)
        plt.close(fig)
        follow = "context_following" if any("context_following" in m["metrics"] for m in d["methods"].values()) else main
        pts = [(n, m["seconds_per_example"], m["metrics"].get(follow, (None,))[0]) for n, m in d["methods"].items()
               if m["seconds_per_example"] is not None and m["metrics"].get(follow)]
        if pts:
            fig, ax = plt.subplots(figsize=(5, 3.5))
            for n, s, v in pts:
                ax.scatter(s, v * 100)
                ax.annotate(n, (s, v * 100), fontsize=8)
            ax.set_xlabel("seconds per example (batched)")
            ax.set_ylabel(f"{follow} (%)")
            ax.set_title(f"{dataset}: latency vs {follow}")
            fig.tight_layout()
            fig.savefig(out_dir / f"{dataset}_latency.png", dpi=120)
            plt.close(fig)
    plot_abstention(report, out_dir)


def plot_abstention(report: dict[str, Any], out_dir: Path) -> None:
    """Each support-threshold table as a curve: the share of right answers withheld against the share of unanswerable
    rows withheld, one point per threshold (validation rows)."""
    import matplotlib.pyplot as plt

    for dataset, tables in report.get("abstention", {}).items():
        curves = {m: rows for m, rows in tables.items() if rows and rows[0]["unanswerable_withheld"] is not None}
        if not curves:
            continue
        fig, ax = plt.subplots(figsize=(5, 4))
        for method, rows in curves.items():
            xs, ys = [100 * r["right_withheld"] for r in rows], [100 * r["unanswerable_withheld"] for r in rows]
            ax.plot(xs, ys, marker="o", label=method)
            for r, x, y in zip(rows, xs, ys):
                ax.annotate(f"{r['threshold']:.2f}", (x, y), fontsize=7)
        ax.set_xlabel("right answers withheld (%)")
        ax.set_ylabel("unanswerable questions withheld (%)")
        ax.set_title(f"{dataset}: support threshold (validation rows)")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out_dir / f"{dataset}_abstention.png", dpi=120)
        plt.close(fig)


def _params(params: dict[str, Any]) -> str:
    """A method's setting as the tables print it."""
    return ", ".join(f"{k}={v}" for k, v in params.items() if k != "system_prompt") or "–"


def _share(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"
