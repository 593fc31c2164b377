"""Loading a cluster dump: ``json.load`` against ``load_manifests`` on the same kubectl-like dump.

    python benchmarks/load.py                          # 1,000 nodes, 20,000 pods, 3 rounds
    python benchmarks/load.py --nodes 200 --pods 4000 --rounds 5 --json out.json
    python benchmarks/load.py --steps json,load-json   # only some steps
    python benchmarks/load.py --baseline-src /tmp/old/src   # also time another checkout, interleaved

The dump is generated once (``--dir``, reused when it is there): ``kubectl get nodes,pods -A -o
json`` (compacted) / ``-o yaml``-shaped, a ``kind: List`` of full objects without ``managedFields``: nodes
with labels, annotations, taints on some, and a full status (capacity, allocatable, conditions,
addresses, images, nodeInfo); pods of Deployments, StatefulSets and DaemonSets with owner
references, containers with env, ports, probes, volume mounts and resources, tolerations,
affinity and spread constraints on some, projected volumes, and a status with conditions,
container statuses and pod IPs.

Each step runs in a fresh process (so its peak RSS is its own), in rounds, steps interleaved:

* ``json``: ``json.load`` of the JSON file (the floor);
* ``load-json``: ``schedframe.load_manifests`` of the JSON file;
* ``load-yaml``: ``load_manifests`` of the YAML file with PyYAML (the fast parser hidden);
* ``load-yaml-fast``: ``load_manifests`` of the YAML file with the ``fastyaml`` extra (skipped
  when it is not installed).

Reported per step: CPU seconds and peak RSS (min / median / max over the rounds), and the ratio
of each to the ``json`` step of the same round. A benchmark, never a test: it prints numbers and
fails on nothing but a broken step.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

STEPS = ("json", "load-json", "load-yaml", "load-yaml-fast")

# --------------------------------------------------------------------------------------------
# the dump


def _ts(rng: random.Random, base: int = 1_700_000_000) -> str:
    t = time.gmtime(base + rng.randrange(0, 30 * 86400))
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", t)


def _uid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


_ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
_TYPES = (("m5.2xlarge", 8, 32), ("m5.4xlarge", 16, 64), ("c5.4xlarge", 16, 32), ("r5.2xlarge", 8, 64))
_IMAGES = [f"registry.example.com/team-{i % 17}/service-{i}:v1.{i % 9}.{i % 5}" for i in range(400)]


def _node(i: int, rng: random.Random) -> dict[str, Any]:
    name = f"ip-10-{i // 250}-{i % 250}-{rng.randrange(1, 250)}.ec2.internal"
    itype, cpu, mem = _TYPES[i % len(_TYPES)]
    zone = _ZONES[i % 3]
    pool = f"pool-{i % 6}"
    labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/instance-type": itype,
        "beta.kubernetes.io/os": "linux",
        "failure-domain.beta.kubernetes.io/region": "us-east-1",
        "failure-domain.beta.kubernetes.io/zone": zone,
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": itype,
        "topology.kubernetes.io/region": "us-east-1",
        "topology.kubernetes.io/zone": zone,
        "eks.amazonaws.com/nodegroup": pool,
        "eks.amazonaws.com/capacityType": "ON_DEMAND" if i % 4 else "SPOT",
    }
    alloc_mem = mem * 1024 * 1024 - 1_500_000
    status_res = {
        "cpu": str(cpu),
        "ephemeral-storage": "104845292Ki",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": f"{mem * 1024 * 1024}Ki",
        "pods": "110",
    }
    allocatable = dict(
        status_res, cpu=f"{cpu * 1000 - 90}m", memory=f"{alloc_mem}Ki", **{"ephemeral-storage": "95551679124"}
    )
    hb = _ts(rng)
    conds = [
        {
            "lastHeartbeatTime": hb,
            "lastTransitionTime": _ts(rng, 1_690_000_000),
            "message": f"kubelet has {msg}",
            "reason": reason,
            "status": st,
            "type": typ,
        }
        for typ, reason, msg, st in (
            ("MemoryPressure", "KubeletHasSufficientMemory", "sufficient memory available", "False"),
            ("DiskPressure", "KubeletHasNoDiskPressure", "no disk pressure", "False"),
            ("PIDPressure", "KubeletHasSufficientPID", "sufficient PID available", "False"),
            ("Ready", "KubeletReady", "posted ready status", "True"),
        )
    ]
    images = [
        {
            "names": [f"{img}@sha256:{rng.getrandbits(256):064x}", img],
            "sizeBytes": rng.randrange(10_000_000, 900_000_000),
        }
        for img in rng.sample(_IMAGES, 15)
    ]
    node: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "annotations": {
                "alpha.kubernetes.io/provided-node-ip": f"10.{i // 250}.{i % 250}.7",
                "csi.volume.kubernetes.io/nodeid": json.dumps(
                    {"ebs.csi.aws.com": f"i-{rng.getrandbits(64):016x}"}
                ),
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
            "creationTimestamp": _ts(rng, 1_690_000_000),
            "labels": labels,
            "name": name,
            "resourceVersion": str(rng.randrange(10**6, 10**8)),
            "uid": _uid(rng),
        },
        "spec": {"providerID": f"aws:///{zone}/i-{rng.getrandbits(64):016x}"},
        "status": {
            "addresses": [
                {"address": f"10.{i // 250}.{i % 250}.7", "type": "InternalIP"},
                {"address": name, "type": "InternalDNS"},
                {"address": name, "type": "Hostname"},
            ],
            "allocatable": allocatable,
            "capacity": status_res,
            "conditions": conds,
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "images": images,
            "nodeInfo": {
                "architecture": "amd64",
                "bootID": _uid(rng),
                "containerRuntimeVersion": "containerd://1.7.11",
                "kernelVersion": "5.10.205-195.807.amzn2.x86_64",
                "kubeProxyVersion": "v1.29.0-eks-5e0fdde",
                "kubeletVersion": "v1.29.0-eks-5e0fdde",
                "machineID": f"{rng.getrandbits(128):032x}",
                "operatingSystem": "linux",
                "osImage": "Amazon Linux 2",
                "systemUUID": _uid(rng),
            },
        },
    }
    if i % 10 == 0:
        node["spec"]["taints"] = [{"effect": "NoSchedule", "key": "dedicated", "value": pool}]
    return node


def _probe(port: int, rng: random.Random) -> dict[str, Any]:
    return {
        "failureThreshold": 3,
        "httpGet": {"path": "/healthz", "port": port, "scheme": "HTTP"},
        "initialDelaySeconds": rng.choice((0, 5, 10, 30)),
        "periodSeconds": 10,
        "successThreshold": 1,
        "timeoutSeconds": 1,
    }


def _container(name: str, image: str, rng: random.Random, big: bool) -> dict[str, Any]:
    port = rng.choice((8080, 8443, 9090, 3000))
    cpu = rng.choice(("100m", "250m", "500m", "1"))
    mem = rng.choice(("128Mi", "256Mi", "512Mi", "1Gi"))
    c: dict[str, Any] = {
        "env": [
            {
                "name": "POD_NAME",
                "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}},
            },
            {
                "name": "POD_NAMESPACE",
                "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}},
            },
            {"name": "LOG_LEVEL", "value": "info"},
            {"name": "JAVA_OPTS", "value": "-Xmx512m -XX:+UseG1GC"},
        ][: rng.randrange(1, 4)],
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "name": name,
        "ports": [{"containerPort": port, "name": "http", "protocol": "TCP"}],
        "resources": {"limits": {"memory": mem}, "requests": {"cpu": cpu, "memory": mem}},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "volumeMounts": [
            {"mountPath": "/etc/config", "name": "config", "readOnly": True},
            {
                "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                "name": "kube-api-access",
                "readOnly": True,
            },
        ],
    }
    if big:
        c["securityContext"] = {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True}
        c["livenessProbe"] = _probe(port, rng)
        c["readinessProbe"] = _probe(port, rng)
    return c


def _pod(i: int, owner: dict[str, Any], nodes: list[str], rng: random.Random) -> dict[str, Any]:
    app, kind, ns, image, hash_, spread = (owner[k] for k in ("app", "kind", "ns", "image", "hash", "spread"))
    suffix = f"{rng.getrandbits(25):x}"[:5]
    name = f"{app}-{hash_}-{suffix}" if kind == "ReplicaSet" else f"{app}-{i}"
    node = nodes[i % len(nodes)] if kind == "DaemonSet" else rng.choice(nodes)
    labels = {"app.kubernetes.io/name": app, "app.kubernetes.io/part-of": owner["team"], "app": app}
    if kind == "ReplicaSet":
        labels["pod-template-hash"] = hash_
    else:
        labels["controller-revision-hash"] = hash_
    containers = [_container(app, image, rng, big=True)]
    if owner["sidecar"]:
        containers.append(_container("proxy", "registry.example.com/mesh/proxy:v1.20.1", rng, big=False))
    start = _ts(rng)
    spec: dict[str, Any] = {
        "containers": containers,
        "dnsPolicy": "ClusterFirst",
        "enableServiceLinks": True,
        "nodeName": node,
        "preemptionPolicy": "PreemptLowerPriority",
        "priority": owner["priority"],
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "securityContext": {"fsGroup": 1000, "runAsNonRoot": True},
        "serviceAccount": app,
        "serviceAccountName": app,
        "terminationGracePeriodSeconds": 30,
        "tolerations": [
            {
                "effect": "NoExecute",
                "key": "node.kubernetes.io/not-ready",
                "operator": "Exists",
                "tolerationSeconds": 300,
            },
            {
                "effect": "NoExecute",
                "key": "node.kubernetes.io/unreachable",
                "operator": "Exists",
                "tolerationSeconds": 300,
            },
        ],
        "volumes": [
            {"configMap": {"defaultMode": 420, "name": f"{app}-config"}, "name": "config"},
            {
                "name": "kube-api-access",
                "projected": {
                    "defaultMode": 420,
                    "sources": [
                        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                        {
                            "configMap": {
                                "items": [{"key": "ca.crt", "path": "ca.crt"}],
                                "name": "kube-root-ca.crt",
                            }
                        },
                        {
                            "downwardAPI": {
                                "items": [
                                    {
                                        "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                                        "path": "namespace",
                                    }
                                ]
                            }
                        },
                    ],
                },
            },
        ],
    }
    if owner["priority"]:
        spec["priorityClassName"] = "high"
    if owner["affinity"]:
        spec["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {
                                    "key": "topology.kubernetes.io/zone",
                                    "operator": "In",
                                    "values": list(_ZONES[:2]),
                                }
                            ]
                        }
                    ]
                }
            },
            "podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "podAffinityTerm": {
                            "labelSelector": {"matchLabels": {"app": app}},
                            "topologyKey": "kubernetes.io/hostname",
                        },
                        "weight": 100,
                    }
                ]
            },
        }
    if spread:
        spec["topologySpreadConstraints"] = [
            {
                "labelSelector": {"matchLabels": {"app": app}},
                "maxSkew": 1,
                "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "ScheduleAnyway",
            }
        ]
    ip = f"10.{100 + i // 65000}.{(i // 250) % 256}.{i % 250 + 1}"
    host_ip = f"10.0.{(i * 7) % 250}.7"
    statuses = [
        {
            "containerID": f"containerd://{rng.getrandbits(256):064x}",
            "image": c["image"],
            "imageID": f"{c['image']}@sha256:{rng.getrandbits(256):064x}",
            "lastState": {},
            "name": c["name"],
            "ready": True,
            "restartCount": rng.choice((0, 0, 0, 1, 3)),
            "started": True,
            "state": {"running": {"startedAt": start}},
        }
        for c in containers
    ]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "annotations": {
                "kubectl.kubernetes.io/restartedAt": start,
                "prometheus.io/scrape": "true",
                "prometheus.io/port": "9100",
            },
            "creationTimestamp": start,
            "generateName": f"{app}-{hash_}-" if kind == "ReplicaSet" else f"{app}-",
            "labels": labels,
            "name": name,
            "namespace": ns,
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "blockOwnerDeletion": True,
                    "controller": True,
                    "kind": kind,
                    "name": f"{app}-{hash_}" if kind == "ReplicaSet" else app,
                    "uid": owner["uid"],
                }
            ],
            "resourceVersion": str(rng.randrange(10**6, 10**8)),
            "uid": _uid(rng),
        },
        "spec": spec,
        "status": {
            "conditions": [
                {"lastProbeTime": None, "lastTransitionTime": start, "status": "True", "type": t}
                for t in (
                    "PodReadyToStartContainers",
                    "Initialized",
                    "Ready",
                    "ContainersReady",
                    "PodScheduled",
                )
            ],
            "containerStatuses": statuses,
            "hostIP": host_ip,
            "hostIPs": [{"ip": host_ip}],
            "phase": "Running",
            "podIP": ip,
            "podIPs": [{"ip": ip}],
            "qosClass": "Burstable",
            "startTime": start,
        },
    }


def generate(nodes: int, pods: int, seed: int = 1) -> dict[str, Any]:
    """A ``kubectl get nodes,pods -A -o json``-shaped ``List`` of *nodes* nodes and *pods* pods."""
    rng = random.Random(seed)
    items = [_node(i, rng) for i in range(nodes)]
    names = [n["metadata"]["name"] for n in items]
    owners = []
    daemonsets = 3 if nodes else 0
    for d in range(daemonsets):
        owners.append({"app": f"agent-{d}", "kind": "DaemonSet", "ns": "kube-system", "count": nodes})
    left = max(pods - daemonsets * nodes, 0)
    while left > 0:
        n = min(left, rng.choice((2, 3, 5, 10, 20, 50)))
        w = len(owners)
        owners.append(
            {
                "app": f"svc-{w}",
                "kind": "ReplicaSet" if w % 5 else "StatefulSet",
                "ns": f"team-{w % 23}",
                "count": n,
            }
        )
        left -= n
    out, i = items, 0
    for o in owners:
        o.update(
            image=rng.choice(_IMAGES),
            hash=f"{rng.getrandbits(40):010x}"[:10],
            team=f"team-{rng.randrange(23)}",
            uid=_uid(rng),
            sidecar=rng.random() < 0.3,
            affinity=rng.random() < 0.2,
            spread=rng.random() < 0.2,
            priority=1000 if rng.random() < 0.1 else 0,
        )
        for _ in range(o["count"]):
            if i >= pods:
                break
            out.append(_pod(i, o, names, rng))
            i += 1
    return {"apiVersion": "v1", "items": out, "kind": "List", "metadata": {"resourceVersion": ""}}


_WORDS = {"yes", "no", "on", "off", "y", "n", "true", "false", "null", "="}


def write_dump(directory: Path, nodes: int, pods: int) -> tuple[Path, Path]:
    """The JSON and YAML files of the dump in *directory* (written when missing)."""
    import yaml

    class Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
        """Quotes what a YAML reader could take for a number, a boolean, a null or a time, as
        kubectl (go-yaml) does: ``pod-template-hash: "0187742912"``."""

    def represent_str(dumper: Any, value: str) -> Any:
        quote = not value or value[0] in "-+.0123456789~" or value.lower() in _WORDS
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"' if quote else None)

    Dumper.add_representer(str, represent_str)
    directory.mkdir(parents=True, exist_ok=True)
    stem = directory / f"kubectl-{nodes}n-{pods}p"
    jpath, ypath = stem.with_suffix(".json"), stem.with_suffix(".yaml")
    if not (jpath.exists() and ypath.exists()):
        data = generate(nodes, pods)
        tmp = jpath.with_suffix(".json.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            # compact (``kubectl get -o json | jq -c``): the fastest input for json.load, so the
            # ratios are the strictest; kubectl's indentation would more than double the size
            json.dump(data, f, separators=(",", ":"))
        os.replace(tmp, jpath)
        tmp = ypath.with_suffix(".yaml.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            yaml.dump(
                data,
                f,
                Dumper=Dumper,
                default_flow_style=False,
                sort_keys=True,
                width=1 << 20,
            )
        os.replace(tmp, ypath)
    return jpath, ypath


# --------------------------------------------------------------------------------------------
# one step, in its own process


def _rss_now_mib() -> float:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:  # not Linux: the peak so far
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _peak_rss_mib() -> float:
    """This process's peak RSS: ``VmHWM`` (``ru_maxrss`` survives ``exec``, so it would count the
    parent's)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _step(step: str, path: str) -> dict[str, Any]:
    if step == "load-yaml":
        sys.modules["yaml_rs"] = None  # type: ignore[assignment]  # hide the fast parser
    if step != "json":
        import warnings

        from schedframe import load_manifests
    before = _rss_now_mib()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    if step == "json":
        with open(path, "rb") as f:
            data = json.load(f)
        count = len(data["items"])
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            objs = load_manifests(Path(path), expand_workloads=False)
        count = len(objs)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    parser = None
    if step.startswith("load-yaml"):
        from schedframe import _textio

        parser = _textio.fast_yaml_parser() if hasattr(_textio, "fast_yaml_parser") else None
    return {
        "step": step,
        "cpu_s": cpu,
        "wall_s": wall,
        "objects": count,
        "parser": parser,
        "peak_rss_mib": _peak_rss_mib(),
        "rss_before_mib": before,
    }


def _run(step: str, path: Path, src: str | None) -> dict[str, Any]:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.run(
        [sys.executable, __file__, "--child", step, str(path)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"step {step} failed:\n{proc.stderr}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _fast_available(src: str | None) -> bool:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src
    code = (
        "import sys; from schedframe import _textio as t; "
        "sys.exit(0 if getattr(t, 'fast_yaml_parser', lambda: None)() else 1)"
    )
    return subprocess.run([sys.executable, "-c", code], env=env, check=False).returncode == 0


def _spread(values: list[float], fmt: str) -> str:
    return "/".join(format(v, fmt) for v in (min(values), statistics.median(values), max(values)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--pods", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", default=",".join(STEPS), help=f"comma-separated, of {', '.join(STEPS)}")
    ap.add_argument(
        "--dir",
        default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "schedframe-load-bench"),
        help="where the dump is written (and reused)",
    )
    ap.add_argument(
        "--baseline-src",
        metavar="DIR",
        help="also run the load steps with schedframe imported from DIR (another checkout's src)",
    )
    ap.add_argument("--json", metavar="FILE", help="write the raw results as JSON")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(_step(*args.child)))
        return 0
    steps = [s.strip() for s in args.steps.split(",") if s.strip()]
    for s in steps:
        if s not in STEPS:
            ap.error(f"unknown step {s!r}; steps: {', '.join(STEPS)}")
    t0 = time.perf_counter()
    jpath, ypath = write_dump(Path(args.dir), args.nodes, args.pods)
    print(
        f"dump: {jpath} ({jpath.stat().st_size / 1e6:.1f} MB), {ypath} ({ypath.stat().st_size / 1e6:.1f} MB)"
        f" [{time.perf_counter() - t0:.1f} s]",
        flush=True,
    )
    runs: list[tuple[str, str, str | None]] = []  # (label, step, src)
    for s in steps:
        if s == "load-yaml-fast" and not _fast_available(None):
            print("load-yaml-fast: skipped (the fastyaml extra is not installed)")
            continue
        runs.append((s, s, None))
    if args.baseline_src:
        for s in steps:
            if s == "json" or (s == "load-yaml-fast" and not _fast_available(args.baseline_src)):
                continue
            runs.append((f"baseline:{s}", s, args.baseline_src))
    results: dict[str, list[dict[str, Any]]] = {label: [] for label, _, _ in runs}
    for r in range(args.rounds):
        for label, step, src in runs:
            res = _run(step, jpath if step in ("json", "load-json") else ypath, src)
            results[label].append(res)
            print(
                f"round {r + 1} {label:24} cpu {res['cpu_s']:7.2f} s  peak {res['peak_rss_mib']:7.0f} MiB"
                + (f"  ({res['parser']})" if res.get("parser") else ""),
                flush=True,
            )
    base = results.get("json")
    print()
    print(
        f"{'step':24} {'CPU s min/med/max':>22} {'x json.load':>16} "
        f"{'peak MiB min/med/max':>22} {'x json':>14}"
    )
    for label, rows in results.items():
        cpu = [x["cpu_s"] for x in rows]
        rss = [x["peak_rss_mib"] for x in rows]
        ratio = rratio = "-"
        if base:
            ratio = _spread([x["cpu_s"] / b["cpu_s"] for x, b in zip(rows, base)], ".2f")
            rratio = _spread([x["peak_rss_mib"] / b["peak_rss_mib"] for x, b in zip(rows, base)], ".2f")
        print(f"{label:24} {_spread(cpu, '.2f'):>22} {ratio:>16} {_spread(rss, '.0f'):>22} {rratio:>14}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(
                {
                    "nodes": args.nodes,
                    "pods": args.pods,
                    "json_bytes": jpath.stat().st_size,
                    "yaml_bytes": ypath.stat().st_size,
                    "results": results,
                },
                f,
                indent=2,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
