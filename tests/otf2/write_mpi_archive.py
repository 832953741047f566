#!/usr/bin/python3
"""Writes an OTF2 archive of a 2-rank MPI run as Score-P writes one, with the
OTF2 Python bindings (Debian's python3-otf2), for tests/otf2: a writer other
than perfcast's. Regions are named after MPI's C functions (paradigm MPI),
communicators are defined by their members, messages and collectives carry
Score-P's records (a collective's sizes count the bytes to and from every
member: an 8-byte allreduce on 2 ranks sends and receives 16). The clock
counts microseconds.

Usage: write_mpi_archive.py DIR VARIANT
  plain   rank 0: MPI_Init, compute (with a user region inside), MPI_Send 1024 B
          to rank 1 (tag 5), compute, MPI_Allreduce 8 B, MPI_Comm_rank,
          MPI_Finalize; rank 1: MPI_Init, MPI_Recv, compute, MPI_Allreduce, MPI_Finalize
  openmp  the same, with an OpenMP parallel region on rank 0 (refused)
  rma     the same, with an MPI_Put record on rank 1 (refused)
  thread  the same, with a second thread in rank 0's process that has events (refused)
"""
import sys

import otf2
from otf2.enums import (CollectiveOp, GroupType, LocationGroupType, LocationType, Paradigm, RegionRole)

directory, variant = sys.argv[1], sys.argv[2]

with otf2.writer.open(directory, timer_resolution=1000000) as trace:
    defs = trace.definitions
    node = defs.system_tree_node("node")
    locations = []
    for rank in range(2):
        group = defs.location_group("MPI Rank {}".format(rank), location_group_type=LocationGroupType.PROCESS,
                                    system_tree_parent=node)
        locations.append(defs.location("Master thread", type=LocationType.CPU_THREAD, group=group))
    if variant == "thread":
        worker = defs.location("worker thread", type=LocationType.CPU_THREAD, group=locations[0].group)
    defs.group("", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI, members=locations)
    world_group = defs.group("", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI, members=[0, 1])
    self_group = defs.group("", group_type=GroupType.COMM_SELF, paradigm=Paradigm.MPI, members=[])
    world = defs.comm("MPI_COMM_WORLD", group=world_group)
    defs.comm("MPI_COMM_SELF", group=self_group)

    def mpi(name, role=RegionRole.FUNCTION):
        return defs.region(name, canonical_name=name, region_role=role, paradigm=Paradigm.MPI)

    init, finalize = mpi("MPI_Init"), mpi("MPI_Finalize")
    send, recv = mpi("MPI_Send", RegionRole.POINT2POINT), mpi("MPI_Recv", RegionRole.POINT2POINT)
    allreduce = mpi("MPI_Allreduce", RegionRole.COLL_ALL2ALL)
    comm_rank = mpi("MPI_Comm_rank")
    kernel = defs.region("kernel", region_role=RegionRole.FUNCTION, paradigm=Paradigm.COMPILER)
    parallel = defs.region("!$omp parallel", region_role=RegionRole.PARALLEL, paradigm=Paradigm.OPENMP)

    w0 = trace.event_writer_from_location(locations[0])
    w0.enter(0, init)
    w0.leave(100, init)
    w0.enter(200, kernel)  # user code between MPI calls: compute
    w0.leave(900, kernel)
    if variant == "openmp":
        w0.enter(910, parallel)
        w0.leave(950, parallel)
    w0.enter(1000, send)
    w0.mpi_send(1010, 1, world, 5, 1024)  # receiver, communicator, tag, bytes
    w0.leave(1200, send)
    w0.enter(3000, allreduce)
    w0.mpi_collective_begin(3000)
    w0.mpi_collective_end(3500, CollectiveOp.ALLREDUCE, world, 0xFFFFFFFF, 16, 16)
    w0.leave(3500, allreduce)
    w0.enter(3600, comm_rank)
    w0.leave(3610, comm_rank)
    w0.enter(4000, finalize)
    w0.leave(4100, finalize)

    if variant == "thread":
        wt = trace.event_writer_from_location(worker)
        wt.enter(300, kernel)
        wt.leave(800, kernel)

    w1 = trace.event_writer_from_location(locations[1])
    w1.enter(0, init)
    w1.leave(150, init)
    w1.enter(500, recv)
    w1.mpi_recv(1290, 0, world, 5, 1024)
    w1.leave(1300, recv)
    if variant == "rma":
        win = defs.rma_win("window", comm=world)
        w1.rma_put(1400, win, 0, 64, 1)
    w1.enter(3100, allreduce)
    w1.mpi_collective_begin(3100)
    w1.mpi_collective_end(3500, CollectiveOp.ALLREDUCE, world, 0xFFFFFFFF, 16, 16)
    w1.leave(3500, allreduce)
    w1.enter(4000, finalize)
    w1.leave(4050, finalize)
