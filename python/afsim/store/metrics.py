"""The scalars every stored run gets (``default_metrics``), from its report alone.

They are computed by this Python code after the run, so their code is part of what a stored
run's numbers depend on: ``afsim.store.CODE_VERSION`` hashes it (``afsim.codehash``) into every
run key and store, and an edit here (or in what it calls, ``afsim.stats.jain``) makes new keys
instead of reusing numbers the old code computed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from afsim.stats import jain


def _num(x: Any) -> float:
    return float(x) if x is not None else math.nan


def flow_contracts(summary: Mapping[str, Any]) -> dict[str, float]:
    """Each contracted flow's contract, kb/s: its own ``contract_kbps`` when a conditioner
    meters it alone, else an equal share of its group's ``contract_kbps`` (the group's
    conditioners meter only it: a customer's contract, its flows sharing it equally — the
    choice docs/assumptions.md states). Flows with neither (best effort) are left out."""
    groups = {g["name"]: g for g in summary.get("groups", [])}
    out: dict[str, float] = {}
    for f in summary["flows"]:
        if f["kind"] == "csa-signal":
            continue
        if f.get("contract_kbps") is not None:
            out[f["name"]] = float(f["contract_kbps"])
            continue
        g = groups.get(f.get("group", ""))
        if g is not None and g.get("contract_kbps") is not None and g["flows"] > 0:
            out[f["name"]] = float(g["contract_kbps"]) / int(g["flows"])
    return out


def default_metrics(summary: Mapping[str, Any]) -> dict[str, float]:
    """The scalars every stored run gets, from its report alone (no pandas):

    - totals over the scenario's flows (CSA signal pseudo-flows left out):
      ``throughput_kbps_total``, ``goodput_kbps_total`` (TCP), ``packets_sent``,
      ``packets_dropped``, ``loss_ratio`` (dropped ÷ sent), ``mean_delay_s`` (over delivered
      packets), ``jain`` (Jain's index of the throughputs of every flow, whatever its
      contract or transport), ``retransmitted_packets`` and ``timeouts`` (TCP),
      ``respect_of_service_mean`` (flows with a contract);
    - fairness by contract (``flow_contracts``: a flow metered alone has its conditioner's
      contract, a flow of a group whose conditioners meter only it an equal share of the
      group's): ``jain_contracted``, Jain's index of throughput ÷ contract over the flows with
      a contract (Jain, Chiu & Hawe 1984 §3: 1 when every flow gets the same multiple of its
      contract), and per contract class of more than one flow ``contract.<kbps>.jain``,
      Jain's index of the throughputs of the flows with that contract;
    - per flow group of more than one flow: ``group.<name>.throughput_kbps_total``,
      ``.jain``, ``.fieb`` (when contracts are known), ``.contract_kbps`` and
      ``.delivered_ros`` (throughput ÷ contract, when the group's conditioners meter only it);
    - per conditioner: ``conditioner.<name>.respect_of_service`` (green at the meter ÷ CIR),
      ``.contract_kbps``, ``.delivered_kbps`` and ``.delivered_ros`` (the throughput its flows
      delivered ÷ its contract);
    - per CSA: ``csa.<name>.alpha_end``, ``.alpha_min``;
    - per queue that dropped or marked a packet or was at least 10 % busy:
      ``queue.<name>.drops_total``, ``.mean_len_packets``, ``.utilization``.
    """
    flows = [f for f in summary["flows"] if f["kind"] != "csa-signal"]
    m: dict[str, float] = {}
    tput = [float(f["throughput_kbps"]) for f in flows]
    m["throughput_kbps_total"] = math.fsum(tput)
    goodput = [f["goodput_kbps"] for f in flows if f.get("goodput_kbps") is not None]
    if goodput:
        m["goodput_kbps_total"] = math.fsum(goodput)
    sent = sum(int(f["packets_sent"]) for f in flows)
    dropped = sum(int(f["packets_dropped"]) for f in flows)
    m["packets_sent"] = float(sent)
    m["packets_dropped"] = float(dropped)
    m["loss_ratio"] = dropped / sent if sent else math.nan
    delivered = [(int(f["packets_delivered"]), f["mean_delay_s"]) for f in flows
                 if f.get("mean_delay_s") is not None]
    n = sum(k for k, _ in delivered)
    m["mean_delay_s"] = math.fsum(k * d for k, d in delivered) / n if n else math.nan
    m["jain"] = jain(tput, exact_sums=True)
    contracts = flow_contracts(summary)
    shares = [float(f["throughput_kbps"]) / contracts[f["name"]] for f in flows
              if contracts.get(f["name"], 0.0) > 0.0]
    if len(shares) > 1:
        m["jain_contracted"] = jain(shares, exact_sums=True)
        classes: dict[float, list[float]] = {}
        for f in flows:
            if contracts.get(f["name"], 0.0) > 0.0:
                classes.setdefault(contracts[f["name"]], []).append(float(f["throughput_kbps"]))
        for c, xs in sorted(classes.items()):
            if len(xs) > 1:
                m[f"contract.{c:g}kbps.jain"] = jain(xs, exact_sums=True)
    for col in ("retransmitted_packets", "timeouts"):
        vals = [f[col] for f in flows if f.get(col) is not None]
        if vals:
            m[col] = float(sum(vals))
    ros = [f["respect_of_service"] for f in flows if f.get("respect_of_service") is not None]
    if ros:
        m["respect_of_service_mean"] = math.fsum(ros) / len(ros)
    for g in summary.get("groups", []):
        if g["flows"] > 1:
            m[f"group.{g['name']}.throughput_kbps_total"] = float(g["throughput_kbps_total"])
            m[f"group.{g['name']}.jain"] = _num(g.get("jain"))
            if g.get("fieb") is not None:
                m[f"group.{g['name']}.fieb"] = float(g["fieb"])
        if g.get("contract_kbps") is not None:
            m[f"group.{g['name']}.contract_kbps"] = float(g["contract_kbps"])
            m[f"group.{g['name']}.delivered_ros"] = _num(g.get("delivered_ros"))
    for c in summary.get("conditioners", []):
        m[f"conditioner.{c['name']}.respect_of_service"] = _num(c.get("respect_of_service"))
        for col in ("contract_kbps", "delivered_kbps", "delivered_ros"):
            if col in c:
                m[f"conditioner.{c['name']}.{col}"] = _num(c.get(col))
    for c in summary.get("csas", []):
        m[f"csa.{c['name']}.alpha_end"] = float(c["alpha_end"])
        m[f"csa.{c['name']}.alpha_min"] = float(c["alpha_min"])
    for q in summary["queues"]:
        if q["drops_total"] > 0 or (q.get("ecn_marks") or 0) > 0 or q["utilization"] >= 0.10:
            for col in ("drops_total", "mean_len_packets", "utilization"):
                m[f"queue.{q['name']}.{col}"] = float(q[col])
    return m
