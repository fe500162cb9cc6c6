#!/usr/bin/env bash
# A second host for tests that need one (multicast: a server and a client on one host would both bind
# the group's ports): network namespace NAME joined to this host by a veth pair, 10.77.N.1 here and
# 10.77.N.2 there, with multicast routed over the pair inside the namespace. Needs root and iproute2.
# `loopback NAME` makes a namespace of its own loopback alone, multicast on and routed over it: a server and its
# viewers run inside it and nothing they send can leave it.
# usage: netns.sh up NAME N | netns.sh loopback NAME | netns.sh down NAME
set -euo pipefail
name="$2"
case "$1" in
up)
    n="$3"
    ip netns add "$name"
    ip link add "$name-h" type veth peer name "$name-n"
    ip link set "$name-n" netns "$name"
    ip addr add "10.77.$n.1/24" dev "$name-h"
    ip link set "$name-h" up
    ip netns exec "$name" ip addr add "10.77.$n.2/24" dev "$name-n"
    ip netns exec "$name" ip link set "$name-n" up
    ip netns exec "$name" ip link set lo up
    ip netns exec "$name" ip route add 224.0.0.0/4 dev "$name-n"
    ;;
loopback)
    ip netns add "$name"
    ip netns exec "$name" ip link set lo up multicast on
    ip netns exec "$name" ip route add 224.0.0.0/4 dev lo
    ;;
down)
    ip netns del "$name" 2>/dev/null || true
    ip link del "$name-h" 2>/dev/null || true
    ;;
esac
