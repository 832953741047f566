"""Generators of event streams in the text form (src/events/text.h).

A job is made phase by phase in one global order: a phase is a compute burst on
some ranks, a point-to-point message between two ranks, an exchange, or a
collective on every rank. Each rank's stream lists its part of the phases in that
order, so running the phases one after the other is an execution of the job: every
blocking call's partner is posted before anything after it, messages between two
ranks are posted in the same order on both sides (MPI's matching order), and the
job cannot deadlock. Nonblocking calls are completed at once or some phases later.

Wildcard receives (peer=any) only on ranks whose every receive is a wildcard of one
size and tag: whichever message such a receive takes, the counts still match.
"""

SIZES = [0, 8, 1024, 65536, 65537, 300000, 1 << 20]
ROOTED = ["bcast", "reduce", "gather", "scatter", "gatherv", "scatterv"]
UNROOTED = ["barrier", "allreduce", "allgather", "alltoall", "alltoallv", "scan", "exscan", "allgatherv",
            "reduce_scatter"]


class Job:
    def __init__(self, nranks):
        self.nranks = nranks
        self.lines = [[] for _ in range(nranks)]
        self.next_req = [1] * nranks
        self.pending = [[] for _ in range(nranks)]  # requests not completed yet
        self.next_comm = [2] * nranks
        self.wildcard = False

    def text(self):
        out = ["# perfcast events 1"]
        for r, lines in enumerate(self.lines):
            out.append(f"rank {r}")
            out.extend(lines)
        return "\n".join(out) + "\n"

    def request(self, rank):
        req = self.next_req[rank]
        self.next_req[rank] += 1
        return req


def compute_line(rng):
    if rng.random() < 0.5:
        return f"compute {rng.choice([0.0, 1e-7, 3e-6, 1e-4, 2.5e-3])!r}"
    flops = rng.choice([0.0, 1e3, 2e6, 5e8])
    nbytes = rng.choice([0.0, 8e3, 1.6e7])
    return f"compute flops={flops!r} bytes={nbytes!r}"


def _complete(job, rng, rank, force=False):
    """Completes some (or, forced, all) of the rank's pending requests with one call."""
    pend = job.pending[rank]
    if not pend:
        return
    if force or rng.random() < 0.5:
        done, job.pending[rank] = pend, []
    else:
        k = rng.randint(1, len(pend))
        done, job.pending[rank] = pend[:k], pend[k:]
    if len(done) == 1 and rng.random() < 0.5:
        job.lines[rank].append(f"wait req={done[0]}")
    else:
        job.lines[rank].append("waitall req=" + ",".join(str(q) for q in done))


def _p2p(job, rng, wild_ranks, wild_size):
    n = job.nranks
    src = rng.randrange(n)
    dst = rng.randrange(n - 1)
    dst += dst >= src
    tag = rng.randrange(4)
    nbytes = wild_size[dst] if dst in wild_ranks else rng.choice(SIZES)
    send_kind = rng.choice(["send", "ssend", "isend", "issend"])
    if send_kind.startswith("i"):
        req = job.request(src)
        job.lines[src].append(f"{send_kind} peer={dst} tag={tag} bytes={nbytes} req={req}")
        job.pending[src].append(req)
    else:
        job.lines[src].append(f"{send_kind} peer={dst} tag={tag} bytes={nbytes}")
    if dst in wild_ranks:
        peer, rtag = "any", "any"
    else:
        peer, rtag = str(src), str(tag)
    if rng.random() < 0.5:
        req = job.request(dst)
        job.lines[dst].append(f"irecv peer={peer} tag={rtag} bytes={nbytes} req={req}")
        job.pending[dst].append(req)
    else:
        if rng.random() < 0.3:
            job.lines[dst].append(f"probe peer={peer} tag={rtag}")
        job.lines[dst].append(f"recv peer={peer} tag={rtag} bytes={nbytes}")


def _collective(job, rng, comm=0, members=None):
    members = list(range(job.nranks)) if members is None else members
    size = len(members)
    op = rng.choice(ROOTED + UNROOTED)
    root = rng.randrange(size)
    b = rng.choice(SIZES[:5])
    counts = [[rng.choice([0, 8, 64, 4096]) for _ in range(size)] for _ in range(size)]
    for local, r in enumerate(members):
        c = f" comm={comm}" if comm else ""
        if op == "barrier":
            line = "barrier"
        elif op in ("bcast", "reduce"):
            line = f"{op} root={root} bytes={b} bytes2={b}"
        elif op == "gather":
            line = f"gather root={root} bytes={b} bytes2={b * size if local == root else 0}"
        elif op == "scatter":
            line = f"scatter root={root} bytes={b * size if local == root else 0} bytes2={b}"
        elif op in ("allreduce", "scan", "exscan"):
            line = f"{op} bytes={b} bytes2={b}"
        elif op == "allgather":
            line = f"allgather bytes={b} bytes2={b * size}"
        elif op == "alltoall":
            line = f"alltoall bytes={b * size} bytes2={b * size}"
        elif op == "reduce_scatter":
            line = f"reduce_scatter bytes={b * size} bytes2={b}"
        elif op == "gatherv":  # member s sends counts[s][root]; the root lists them all
            line = f"gatherv root={root} bytes={counts[local][root]}"
            if local == root:
                line += " counts2=" + ",".join(str(counts[s][root]) for s in range(size))
        elif op == "scatterv":
            line = f"scatterv root={root} bytes2={counts[root][local]}"
            if local == root:
                line += " counts=" + ",".join(str(counts[root][d]) for d in range(size))
        elif op == "allgatherv":  # member s contributes counts[s][0] to everyone
            line = f"allgatherv bytes={counts[local][0]} counts2=" + ",".join(str(counts[s][0]) for s in range(size))
        else:  # alltoallv: what local sends to d is what d receives from local
            sends = ",".join(str(counts[local][d]) for d in range(size))
            recvs = ",".join(str(counts[s][local]) for s in range(size))
            line = f"alltoallv counts={sends} counts2={recvs}"
        job.lines[r].append(line + c)


def _sendrecv_pair(job, rng):
    n = job.nranks
    a = rng.randrange(n)
    b = rng.randrange(n - 1)
    b += b >= a
    tag = rng.randrange(4)
    x, y = rng.choice(SIZES), rng.choice(SIZES)
    job.lines[a].append(f"sendrecv peer={b} source={b} tag={tag} tag2={tag} bytes={x} bytes2={y}")
    job.lines[b].append(f"sendrecv peer={a} source={a} tag={tag} tag2={tag} bytes={y} bytes2={x}")


def _ring(job, rng):
    n = job.nranks
    b = rng.choice(SIZES)
    for r in range(n):
        job.lines[r].append(f"sendrecv peer={(r + 1) % n} source={(r - 1) % n} tag=9 tag2=9 bytes={b} bytes2={b}")


def _split(job, rng):
    """A comm_split into two halves (or one), a collective on the new communicator."""
    n = job.nranks
    colors = [rng.randrange(2) for _ in range(n)]
    handles = []
    for r in range(n):
        h = job.next_comm[r]
        job.next_comm[r] += 1
        handles.append(h)
        job.lines[r].append(f"comm_split color={colors[r]} key={n - r} new={h}")
    for color in (0, 1):
        members = [r for r in range(n) if colors[r] == color]
        if not members:
            continue
        # Ranks in the new communicator are ordered by key (n - r): reversed.
        members.sort(key=lambda r: n - r)
        # Every member created the communicator at the same point of its stream,
        # so its handle is the one the member got.
        comm = handles[members[0]]
        if all(handles[m] == comm for m in members):
            _collective(job, rng, comm=comm, members=members)


def _dup(job, rng):
    """A copy of the world (comm_dup or cart_create), a collective on it, maybe freed."""
    kind = rng.choice(["comm_dup", "cart_create"])
    h = job.next_comm[0]
    for r in range(job.nranks):
        job.next_comm[r] += 1
        job.lines[r].append(f"{kind} new={h}")
    _collective(job, rng, comm=h)
    if rng.random() < 0.5:
        for r in range(job.nranks):
            job.lines[r].append(f"comm_free comm={h}")


def generate(rng, nranks, phases, wildcards=False):
    """A job of nranks ranks and about `phases` phases. Returns the Job."""
    job = Job(nranks)
    wild_ranks = set()
    wild_size = {}
    if wildcards and nranks > 1:
        job.wildcard = True
        wild_ranks = {r for r in range(nranks) if rng.random() < 0.5} or {0}
        wild_size = {r: rng.choice(SIZES) for r in wild_ranks}
    for _ in range(phases):
        x = rng.random()
        if x < 0.35 or nranks == 1:
            for r in range(nranks):
                if rng.random() < 0.7:
                    job.lines[r].append(compute_line(rng))
            if nranks == 1 and rng.random() < 0.3:
                _collective(job, rng)
        elif x < 0.65:
            _p2p(job, rng, wild_ranks, wild_size)
        elif x < 0.72 and not wild_ranks:
            _sendrecv_pair(job, rng)
        elif x < 0.76 and not wild_ranks:
            _ring(job, rng)
        elif x < 0.78:
            _split(job, rng)
        elif x < 0.80:
            _dup(job, rng)
        elif x < 0.83:
            r = rng.randrange(nranks)
            job.lines[r].append(rng.choice(["send peer=null tag=1 bytes=8", "recv peer=null tag=1 bytes=8"]))
        elif x < 0.90:
            _complete(job, rng, rng.randrange(nranks))
        else:
            _collective(job, rng)
    for r in range(nranks):
        _complete(job, rng, r, force=True)
    return job


def add_work(job, rng):
    """The same job with one more compute burst (or a longer one) on one rank.
    Returns (job text, the rank given more work)."""
    r = rng.randrange(job.nranks)
    lines = [list(l) for l in job.lines]
    bursts = [i for i, l in enumerate(lines[r]) if l.startswith("compute ") and "flops=" not in l]
    if bursts and rng.random() < 0.5:
        i = rng.choice(bursts)
        seconds = float(lines[r][i].split()[1])
        lines[r][i] = f"compute {seconds + rng.choice([1e-7, 1e-5, 1e-3])!r}"
    else:
        i = rng.randrange(len(lines[r]) + 1)
        extra = rng.choice([f"compute {rng.choice([1e-7, 1e-5, 1e-3])!r}",
                            f"compute flops={rng.choice([1e3, 1e6, 1e9])!r}",
                            f"compute flops=0.0 bytes={rng.choice([8e3, 1e8])!r}"])
        lines[r].insert(i, extra)
    other = Job(job.nranks)
    other.lines = lines
    return other.text(), r
