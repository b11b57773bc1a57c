# What the ns-2 validation scripts (dumbbell.tcl, af.tcl, diffserv.tcl) share: the one-way TCP
# they all set up, its agents by sender, the timeout count and the greedy flows. Sourced, not
# run. Every setting that the afsim scenarios have to match is set explicitly, so that ns-2's
# defaults (ns-default.tcl) cannot change a comparison silently; "ns-2.35 default:" marks the
# ones set to something else. See docs/validation.md.

# The script's key=value arguments into the array `optvar` (in the caller), whose keys are
# the known options with their defaults; an unknown key or a malformed argument exits with
# status 2 naming `script`.
proc parse_options {script optvar argv} {
    upvar $optvar opt
    foreach a $argv {
        set kv [split $a =]
        if {[llength $kv] != 2 || ![info exists opt([lindex $kv 0])]} {
            puts stderr "$script: bad argument '$a' (known: [lsort [array names opt]])"
            exit 2
        }
        set opt([lindex $kv 0]) [lindex $kv 1]
    }
}

# One-way TCP with `payload`-byte segments (+40 B of TCP/IP headers, useHeaders_), a receiver
# window of `window` packets, an initial window of `iw`, limited transmit `lt` (singledup_),
# clock tick `tick` seconds and ECN `ecn`.
proc tcp_defaults {payload window iw lt tick ecn} {
    Agent/TCP set packetSize_ $payload
    Agent/TCP set useHeaders_ true
    Agent/TCP set window_ $window      ;# packets (ns-2.35 default: 20)
    Agent/TCP set windowInit_ $iw      ;# ns-2.35 default 2
    Agent/TCP set windowInitOption_ 1  ;# a static initial window of windowInit_
    Agent/TCP set syn_ false           ;# ns-2.35 default: true (a 40-byte SYN as seqno 0 before data; afsim's one-way TCP has none)
    Agent/TCP set singledup_ $lt       ;# limited transmit, ns-2.35 default 1
    Agent/TCP set numdupacks_ 3
    Agent/TCP set tcpTick_ $tick       ;# ns-2.35 default 0.01
    Agent/TCP set minrto_ 0.2
    Agent/TCP set maxrto_ 60
    Agent/TCP set rtxcur_init_ 3.0
    Agent/TCP set maxburst_ 0
    Agent/TCP set overhead_ 0          ;# no random send delay: the queue's coin flips are the only randomness
    Agent/TCP set timestamps_ false
    Agent/TCP set ecn_ $ecn
    Agent/TCP set old_ecn_ 0
}

# The sender and sink classes of `variant`: reno (Agent/TCP/Reno), newreno (Agent/TCP/Newreno),
# both with Agent/TCPSink (an ACK per segment); sack (Agent/TCP/Sack1 with Agent/TCPSink/Sack1).
# Exits with status 2 naming `script` for another variant.
proc tcp_agents {script variant} {
    array set agents {
        reno    {Agent/TCP/Reno Agent/TCPSink}
        newreno {Agent/TCP/Newreno Agent/TCPSink}
        sack    {Agent/TCP/Sack1 Agent/TCPSink/Sack1}
    }
    if {![info exists agents($variant)]} {
        puts stderr "$script: variant must be one of [lsort [array names agents]]"
        exit 2
    }
    return $agents($variant)
}

# Every retransmission timeout of `n` flows: TcpAgent::timeout() writes a "TIMEOUT" event
# ("E time src dst TCP TIMEOUT fid seqno cwnd") to its agent's event trace at every expiry,
# including those that end an ECN window reduction or find nothing outstanding, which nrexmit_
# does not count. Returns {channel trace}; closing the channel makes awk print
# "TIMEOUTS n0 n1 ..." on stdout.
proc timeout_trace {n} {
    set chan [open "|awk -v N=$n {\$6 == \"TIMEOUT\" {n\[\$7\]++} END {printf \"TIMEOUTS\"; for (i = 0; i < N; i++) printf \" %d\", n\[i\] + 0; printf \"\\n\"}}" w]
    set trace [new BaseTrace/Event]
    $trace attach $chan
    return [list $chan $trace]
}

# A greedy flow (Application/FTP) of flow id `fid` from node `src` to node `dst`, starting at
# `start`; its sender writes to the event trace `evtrace` unless that is "". Returns {tcp sink}.
proc greedy_flow {ns src dst agents fid start evtrace} {
    lassign $agents tcp_class sink_class
    set tcp [new $tcp_class]
    $tcp set fid_ $fid
    set sink [new $sink_class]
    $ns attach-agent $src $tcp
    $ns attach-agent $dst $sink
    $ns connect $tcp $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    if {$evtrace != ""} { $tcp eventtrace $evtrace }
    $ns at $start "$ftp start"
    return [list $tcp $sink]
}

# A dsRED queue `q` with one physical queue of two precedences in mode `mode` (RIO-C, RIO-D,
# WRED): code point 10 (AF11) is precedence 0 (IN), 12 (AF12) precedence 1 (OUT); `mps` bytes is
# the mean packet size of its idle-time decay (ptc = link rate / (8 mps)).
proc dsred_in_out {q mps mode} {
    $q meanPktSize $mps
    $q set numQueues_ 1
    $q setNumPrec 2
    $q setMREDMode $mode
    $q addPHBEntry 10 0 0
    $q addPHBEntry 12 0 1
}

# A queue trace of the link `from` -> `to` piped through awk: "+" arrival, "-" departure, "d"
# drop. At a drop the arrival's "+" is already counted, so the queue held (arrivals - 1 -
# departures - drops) packets; dsredq.cc drops an arrival for overflow exactly when that is
# >= the limit `limit`, before looking at any average; the other drops are RIO's, early
# (random) or forced (average above max_th), which ns-2's own counters tell apart. Returns the
# channel; closing it (after `$ns flush-trace`) makes awk print one line "TRACE {...}": arrivals,
# departures, departed bytes, overflow and RIO drops, the time-average of the queue length over
# `T` seconds, and the drops of flows 0..`nflows`-1.
proc queue_trace {ns from to limit T nflows} {
    set awk {
        BEGIN { n = 0; last = 0; area = 0 }
        { dt = $2 - last; area += n * dt; last = $2 }
        $1 == "+" { arr++; n++ }
        $1 == "-" { dep++; depb += $6; n-- }
        $1 == "d" { n--; if (n >= LIM) ovf++; else rio++; fd[$8]++ }
        END {
            area += n * (T - last)
            printf "TRACE {\"arrivals\": %d, \"departures\": %d, \"departure_bytes\": %d, \"overflow_drops\": %d, \"rio_drops\": %d, \"mean_len_packets\": %.4f, \"flow_drops\": [", arr, dep, depb, ovf, rio, area / T
            for (i = 0; i < NFLOWS; i++) printf "%s%d", (i ? ", " : ""), fd[i] + 0
            printf "]}\n"
        }
    }
    set chan [open "|awk -v LIM=$limit -v T=$T -v NFLOWS=$nflows {$awk}" w]
    $ns trace-queue $from $to $chan
    return $chan
}

# The reproductions' twins (afsim/ns2/leung.tcl, gtfrc.tcl, giacomazzi.tcl):

# dsREDQueue getStat of code point `cp` at queue `q`, counted at arrival, as JSON: arrivals
# (pkts), random early drops (edrops), and the other drops (drops: buffer full or average
# beyond max_th).
proc cpstats {q cp} {
    return [format {{"arrivals": %d, "early_drops": %d, "other_drops": %d}} \
        [expr {int([$q getStat pkts $cp])}] [expr {int([$q getStat edrops $cp])}] \
        [expr {int([$q getStat drops $cp])}]]
}

# The IP bytes of flows 0..n-1 (by flow id): each source's access link `src(i) -> first(i)` and
# each destination's last link `last(i) -> dst(i)` share one trace through awk, which counts "+"
# at the sources (sent) and "r" at the destinations (delivered: after `warmup`, and over the
# whole run). Returns the channel; closing it (after `$ns flush-trace`) prints "SENT b0 b1 ...",
# "DELIVERED ..." and "TOTAL ...". `srcs`, `firsts`, `lasts` and `dsts` are lists of nodes.
proc bytes_trace {ns srcs firsts lasts dsts warmup} {
    set n [llength $srcs]
    set from ""
    set to ""
    foreach s $srcs { append from "FROM\[[$s id]\] = 1; " }
    foreach d $dsts { append to "TO\[[$d id]\] = 1; " }
    set awk {
        $1 == "+" && ($3 in FROM) { s[$8] += $6 }
        $1 == "r" && ($4 in TO) { a[$8] += $6; if ($2 > W) b[$8] += $6 }
        END {
            printf "SENT"; for (i = 0; i < N; i++) printf " %d", s[i] + 0; printf "\n"
            printf "DELIVERED"; for (i = 0; i < N; i++) printf " %d", b[i] + 0; printf "\n"
            printf "TOTAL"; for (i = 0; i < N; i++) printf " %d", a[i] + 0; printf "\n"
        }
    }
    set chan [open "|awk -v N=$n -v W=$warmup {BEGIN { $from $to } $awk}" w]
    foreach s $srcs f $firsts l $lasts d $dsts {
        $ns trace-queue $s $f $chan
        $ns trace-queue $l $d $chan
    }
    return $chan
}
