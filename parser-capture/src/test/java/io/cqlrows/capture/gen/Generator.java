package io.cqlrows.capture.gen;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Makes one synthetic capture (see {@link SyntheticCapture}). Connections open up to the
 * concurrency; each step picks an open connection at random and writes its next exchange whole: the
 * client's requests (1 to maxInFlight, pipelined, one byte stream cut into segments of at most 1448
 * bytes), then each response after its latency, in random order, each in its own segments. One
 * instance per capture; not thread-safe.
 */
final class Generator {
  private static final int SERVER_IP = (127 << 24) | 2;
  private static final int SERVER_PORT = 9042;
  private static final int MSS = 1448;

  /** 2026-01-01T00:00:00Z. */
  private static final long START_MICROS = 1_767_225_600_000_000L;

  private static final byte[] NONE = new byte[0];

  private enum Phase {
    OPTIONS,
    STARTUP,
    WORK,
    CLOSE
  }

  /** One request of an exchange. */
  private static final class Req {
    final Statement st;
    final int opcode;
    final int stream;
    final byte[] pagingState;

    /** The timestamp of the first packet carrying its last byte. */
    long lastByteMicros;

    Req(Statement st, int opcode, int stream, byte[] pagingState) {
      this.st = st;
      this.opcode = opcode;
      this.stream = stream;
      this.pagingState = pagingState;
    }
  }

  /** A page to fetch next: a statement and the paging state of its last Rows. */
  private static final class Page {
    final Statement st;
    final byte[] state;

    Page(Statement st, byte[] state) {
      this.st = st;
      this.state = state;
    }
  }

  /** One TCP connection's state and counts. */
  private static final class Conn {
    final int index;
    final int ip;
    final int port;
    final long clientIsn;
    final long serverIsn;

    /** The next sequence numbers (unbounded; written modulo 2^32). */
    long clientNext;

    long serverNext;
    Phase phase = Phase.OPTIONS;
    final Set<Integer> prepared = new HashSet<>();
    final ArrayDeque<Page> followUps = new ArrayDeque<>();
    final Set<Integer> paging = new HashSet<>();
    long used;
    long packets;
    long requests;
    long responses;
    long unanswered;
    long lostResponses;
    long lostBytes;
    long lostSegments;

    Conn(int index, long clientIsn, long serverIsn) {
      this.index = index;
      this.ip = (127 << 24) | (1 << 8) | (1 + index % 250);
      this.port = 32_768 + index;
      this.clientIsn = clientIsn;
      this.serverIsn = serverIsn;
      this.clientNext = clientIsn + 1;
      this.serverNext = serverIsn + 1;
    }
  }

  private final SyntheticCapture.Spec spec;
  private final SplittableRandom rnd;
  private final PcapOut pcap;
  private final List<Statement> statements;
  private final int totalWeight;
  private final long budget;

  /** 64 KiB of seeded random bytes: what payloads are cut from. */
  private final byte[] pattern = new byte[1 << 16];

  private final Tally tally;
  private final Bytes out = new Bytes();
  private final Bytes in = new Bytes();
  private final int[] payloads = new int[200];
  private long clock = START_MICROS;

  Generator(SyntheticCapture.Spec spec, OutputStream sink) throws IOException {
    this.spec = spec;
    this.rnd = new SplittableRandom(spec.seed());
    this.pcap = new PcapOut(sink);
    this.budget = spec.targetBytes() / spec.connections();
    // about 40 requests per connection with Rows of 50 rows on average
    int payloadMean = (int) Math.max(0, Math.min(12_000, budget / 2_000 - 30));
    this.statements = Statement.workload(spec.statements(), payloadMean, rnd);
    this.totalWeight = statements.stream().mapToInt(s -> s.weight).sum();
    rnd.nextBytes(pattern);
    this.tally = new Tally(statements);
  }

  SyntheticCapture.Expected run() throws IOException {
    List<Conn> open = new ArrayList<>();
    int opened = 0;
    while (opened < spec.connections() || !open.isEmpty()) {
      while (open.size() < spec.concurrency() && opened < spec.connections()) {
        open.add(connect(opened++));
      }
      int k = rnd.nextInt(open.size());
      if (step(open.get(k))) {
        open.remove(k);
      }
    }
    pcap.flush();
    return tally.expected(pcap.packets(), pcap.bytes());
  }

  /** SYN, SYN-ACK, ACK. */
  private Conn connect(int index) throws IOException {
    Conn c = new Conn(index, rnd.nextLong() & 0xffffffffL, rnd.nextLong() & 0xffffffffL);
    long p0 = pcap.packets();
    long b0 = pcap.bytes();
    packet(c, true, c.clientIsn, 0, PcapOut.SYN, tick(), NONE, 0, 0);
    packet(c, false, c.serverIsn, c.clientNext, PcapOut.SYN | PcapOut.ACK, tick(), NONE, 0, 0);
    packet(c, true, c.clientNext, c.serverNext, PcapOut.ACK, tick(), NONE, 0, 0);
    c.packets += pcap.packets() - p0;
    c.used += pcap.bytes() - b0;
    return c;
  }

  /** Writes the connection's next exchange; true when it has closed. */
  private boolean step(Conn c) throws IOException {
    long p0 = pcap.packets();
    long b0 = pcap.bytes();
    boolean closed = false;
    switch (c.phase) {
      case OPTIONS:
        exchange(c, List.of(new Req(null, SyntheticCapture.OPTIONS, 0, null)), true);
        c.phase = Phase.STARTUP;
        break;
      case STARTUP:
        exchange(c, List.of(new Req(null, SyntheticCapture.STARTUP, 0, null)), true);
        c.phase = Phase.WORK;
        break;
      case WORK:
        exchange(c, requests(c, true), true);
        break;
      case CLOSE:
        if (rnd.nextDouble() < spec.unansweredRate()) {
          exchange(c, requests(c, false), false);
        }
        fin(c);
        closed = true;
        break;
    }
    c.packets += pcap.packets() - p0;
    c.used += pcap.bytes() - b0;
    if (c.phase == Phase.WORK && c.requests > 2 && c.used >= budget) {
      c.phase = Phase.CLOSE;
    }
    if (closed) {
      tally.connection(
          new ConnectionStats(
              c.index,
              "127.0.1." + (c.ip & 0xff),
              c.port,
              c.packets,
              c.requests,
              c.responses,
              c.unanswered,
              c.lostResponses,
              c.clientNext - c.clientIsn - 1,
              c.serverNext - c.serverIsn - 1,
              0,
              c.lostBytes,
              c.lostSegments));
    }
    return closed;
  }

  /** FIN from the client, FIN from the server, the client's last ACK. */
  private void fin(Conn c) throws IOException {
    int finAck = PcapOut.FIN | PcapOut.ACK;
    packet(c, true, c.clientNext, c.serverNext, finAck, tick(), NONE, 0, 0);
    packet(c, false, c.serverNext, c.clientNext + 1, finAck, tick(), NONE, 0, 0);
    packet(c, true, c.clientNext + 1, c.serverNext + 1, PcapOut.ACK, tick(), NONE, 0, 0);
  }

  /**
   * The requests of one exchange: the pages to fetch first (when {@code followUps}), then random
   * statements, a PREPARE instead of a statement not yet prepared on the connection.
   */
  private List<Req> requests(Conn c, boolean followUps) {
    int want = 1;
    if (spec.maxInFlight() > 1 && rnd.nextInt(3) == 0) {
      want = 2 + rnd.nextInt(spec.maxInFlight() - 1);
    }
    List<Req> list = new ArrayList<>();
    Set<Integer> streams = new HashSet<>();
    while (followUps && !c.followUps.isEmpty() && list.size() < want) {
      Page p = c.followUps.poll();
      c.paging.remove(p.st.index);
      int op = p.st.prepared ? SyntheticCapture.EXECUTE : SyntheticCapture.QUERY;
      list.add(new Req(p.st, op, stream(streams), p.state));
    }
    Set<Integer> preparing = new HashSet<>();
    for (int tries = 0; list.size() < want && tries < 4 * want; tries++) {
      Statement s = pick();
      if (c.paging.contains(s.index)) {
        continue; // its next request is its next page
      }
      Statement unprepared = null;
      if (s.kind == Statement.Kind.BATCH) {
        for (Statement.Member m : s.members) {
          if (m.prepared() != null && !c.prepared.contains(m.prepared().index)) {
            unprepared = m.prepared();
            break;
          }
        }
      } else if (s.prepared && !c.prepared.contains(s.index)) {
        unprepared = s;
      }
      if (unprepared != null) {
        if (preparing.add(unprepared.index)) {
          list.add(new Req(unprepared, SyntheticCapture.PREPARE, stream(streams), null));
        }
        continue;
      }
      int op =
          s.kind == Statement.Kind.BATCH
              ? SyntheticCapture.BATCH
              : s.prepared ? SyntheticCapture.EXECUTE : SyntheticCapture.QUERY;
      list.add(new Req(s, op, stream(streams), null));
    }
    return list;
  }

  private int stream(Set<Integer> taken) {
    int id;
    do {
      id = rnd.nextInt(128);
    } while (!taken.add(id));
    return id;
  }

  private Statement pick() {
    int w = rnd.nextInt(totalWeight);
    for (Statement s : statements) {
      w -= s.weight;
      if (w < 0) {
        return s;
      }
    }
    throw new AssertionError("weights");
  }

  /** The client's requests in one write, then (if {@code answer}) each response. */
  private void exchange(Conn c, List<Req> reqs, boolean answer) throws IOException {
    if (reqs.isEmpty()) {
      return;
    }
    out.reset();
    int[] ends = new int[reqs.size()];
    for (int i = 0; i < ends.length; i++) {
      Req r = reqs.get(i);
      encode(r);
      ends[i] = out.length();
      tally.request(r.st, r.opcode);
      c.requests++;
    }
    long[] stamps = new long[ends.length];
    send(c, true, out.array(), out.length(), ends, stamps);
    for (int i = 0; i < ends.length; i++) {
      reqs.get(i).lastByteMicros = stamps[i];
    }
    if (!answer) {
      for (Req r : reqs) {
        tally.unanswered(r.st, r.opcode);
        c.unanswered++;
      }
      return;
    }
    List<Req> order = new ArrayList<>(reqs);
    for (int i = order.size() - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      order.set(j, order.set(i, order.get(j)));
    }
    for (Req r : order) {
      respond(c, r);
    }
  }

  private void encode(Req r) {
    switch (r.opcode) {
      case SyntheticCapture.OPTIONS:
        Frames.options(out, r.stream);
        break;
      case SyntheticCapture.STARTUP:
        Frames.startup(out, r.stream);
        break;
      case SyntheticCapture.PREPARE:
        Frames.prepare(out, r.stream, r.st);
        break;
      case SyntheticCapture.BATCH:
        Frames.batch(out, r.stream, r.st);
        break;
      default:
        int payload = r.st.kind == Statement.Kind.INSERT ? payloadSize(r.st, 8_192) : 0;
        Frames.queryOrExecute(
            out, r.stream, r.st, rnd.nextInt(1 << 20), r.pagingState, payload, pattern);
        break;
    }
  }

  /** The response to {@code r}, after its latency. */
  private void respond(Conn c, Req r) throws IOException {
    clock += latency(r.st);
    in.reset();
    int len;
    int error = 0;
    int rows = -1;
    byte[] more = null;
    switch (r.opcode) {
      case SyntheticCapture.OPTIONS:
        len = Frames.supported(in, r.stream);
        break;
      case SyntheticCapture.STARTUP:
        len = Frames.ready(in, r.stream);
        break;
      case SyntheticCapture.PREPARE:
        len = Frames.prepared(in, r.stream, r.st);
        break;
      default:
        if (rnd.nextDouble() < spec.errorRate()) {
          error = errorCode(r.st);
          len = Frames.error(in, r.stream, error);
        } else if (r.st.kind == Statement.Kind.SELECT) {
          rows = 1 + rnd.nextInt(r.st.maxRows);
          if (rnd.nextDouble() < r.st.pageProbability) {
            more = new byte[8 + rnd.nextInt(17)];
            rnd.nextBytes(more);
          }
          for (int i = 0; i < rows; i++) {
            payloads[i] = payloadSize(r.st, 1 << 16);
          }
          len =
              Frames.rows(in, r.stream, r.st, rnd.nextInt(1 << 20), payloads, rows, more, pattern);
        } else {
          len = Frames.voidResult(in, r.stream);
        }
        break;
    }
    long[] stamp = new long[1];
    long lost = send(c, false, in.array(), len, new int[] {len}, stamp);
    if (lost > 0) {
      tally.lost(r.st, r.opcode);
      c.lostResponses++;
    } else {
      tally.response(r.st, r.opcode, (stamp[0] - r.lastByteMicros) * 1_000, len, error, rows);
      c.responses++;
    }
    if (r.opcode == SyntheticCapture.PREPARE) {
      c.prepared.add(r.st.index);
    }
    if (more != null) {
      c.followUps.add(new Page(r.st, more));
      c.paging.add(r.st.index);
    }
  }

  private int payloadSize(Statement s, int cap) {
    return s.payloadMean == 0 ? 0 : Math.min(cap, rnd.nextInt(2 * s.payloadMean + 1));
  }

  private int errorCode(Statement s) {
    if (s.kind == Statement.Kind.SELECT) {
      int k = rnd.nextInt(3);
      return k == 0
          ? SyntheticCapture.INVALID
          : k == 1 ? SyntheticCapture.READ_TIMEOUT : SyntheticCapture.UNAVAILABLE;
    }
    return rnd.nextBoolean() ? SyntheticCapture.INVALID : SyntheticCapture.UNAVAILABLE;
  }

  /** Microseconds from a request's last byte to its response's first: a statement's own spread. */
  private long latency(Statement s) {
    int base = s == null ? 50 + rnd.nextInt(200) : s.latencyMicros;
    long micros = (long) base / 2 + rnd.nextInt(base);
    if (rnd.nextInt(50) == 0) {
      micros *= 5 + rnd.nextInt(16); // a slow tail
    }
    return micros;
  }

  private long tick() {
    clock += 1 + rnd.nextInt(50);
    return clock;
  }

  /**
   * Writes {@code len} bytes of one direction as data segments, with the faults of the spec, and
   * advances the sender's sequence number past them.
   *
   * @param ends where each message in {@code data} ends
   * @param stamps set to the timestamp of the first packet carrying each message's last byte
   * @return the bytes never written (lost segments)
   */
  private long send(Conn c, boolean fromClient, byte[] data, int len, int[] ends, long[] stamps)
      throws IOException {
    Arrays.fill(stamps, -1);
    Segments seg = new Segments(c, fromClient, data, len, ends, stamps);
    boolean response = !fromClient;
    int n = (len + MSS - 1) / MSS;
    int retransmit = -1; // a segment to write again after the next packet
    int overlap = -1; // a segment to write again in part with the next, after the next
    long lost = 0;
    for (int i = 0; i < n; ) {
      if (response && i > 0 && rnd.nextDouble() < spec.lossRate()) {
        int bytes = seg.end(i) - seg.start(i);
        lost += bytes;
        tally.lostSegments++;
        tally.lostBytes += bytes;
        c.lostSegments++;
        overlap = -1;
        i++;
        continue;
      }
      if (response && i + 2 < n && rnd.nextDouble() < spec.reorderRate()) {
        // S(i+1) first, then the client's ACK of both, then S(i), each with its own timestamp
        long t1 = tick();
        long t2 = tick();
        long t3 = tick();
        seg.write(i + 1, t2);
        packet(c, true, c.clientNext, seg.seq(seg.end(i + 1)), PcapOut.ACK, t3, NONE, 0, 0);
        seg.write(i, t1);
        tally.reorders++;
        if (retransmit >= 0) {
          seg.write(retransmit, tick());
          tally.retransmissions++;
          retransmit = -1;
        }
        overlap = -1;
        i += 2;
        continue;
      }
      seg.write(i, tick());
      if (retransmit >= 0) {
        seg.write(retransmit, tick());
        tally.retransmissions++;
        retransmit = -1;
      }
      if (overlap >= 0 && overlap == i - 1) {
        seg.overlap(i - 1, tick());
        tally.overlaps++;
      }
      overlap = -1;
      if (rnd.nextDouble() < spec.retransmitRate()) {
        retransmit = i;
      }
      if (i + 1 < n && rnd.nextDouble() < spec.overlapRate()) {
        overlap = i;
      }
      i++;
    }
    if (retransmit >= 0) {
      seg.write(retransmit, tick());
      tally.retransmissions++;
    }
    if (fromClient) {
      c.clientNext += len;
    } else {
      c.serverNext += len;
      c.lostBytes += lost;
    }
    return lost;
  }

  /** The segments of one write: their bounds, and writing one (stamping the messages it ends). */
  private final class Segments {
    final Conn c;
    final boolean fromClient;
    final byte[] data;
    final int len;
    final int[] ends;
    final long[] stamps;
    final long base;
    final long ack;
    final int last;

    Segments(Conn c, boolean fromClient, byte[] data, int len, int[] ends, long[] stamps) {
      this.c = c;
      this.fromClient = fromClient;
      this.data = data;
      this.len = len;
      this.ends = ends;
      this.stamps = stamps;
      this.base = fromClient ? c.clientNext : c.serverNext;
      this.ack = fromClient ? c.serverNext : c.clientNext;
      this.last = (len + MSS - 1) / MSS - 1;
    }

    int start(int i) {
      return i * MSS;
    }

    int end(int i) {
      return Math.min(len, (i + 1) * MSS);
    }

    long seq(int offset) {
      return base + offset;
    }

    void write(int i, long micros) throws IOException {
      int flags = PcapOut.ACK | (i == last ? PcapOut.PSH : 0);
      bytes(start(i), end(i), flags, micros);
    }

    /** The second half of segment i and the first half of segment i + 1. */
    void overlap(int i, long micros) throws IOException {
      int from = start(i) + (end(i) - start(i)) / 2;
      int to = start(i + 1) + (end(i + 1) - start(i + 1) + 1) / 2;
      bytes(from, to, PcapOut.ACK, micros);
    }

    private void bytes(int from, int to, int flags, long micros) throws IOException {
      packet(c, fromClient, seq(from), ack, flags, micros, data, from, to - from);
      for (int m = 0; m < ends.length; m++) {
        if (stamps[m] < 0 && ends[m] - 1 >= from && ends[m] - 1 < to) {
          stamps[m] = micros;
        }
      }
    }
  }

  private void packet(
      Conn c,
      boolean fromClient,
      long seq,
      long ack,
      int flags,
      long micros,
      byte[] data,
      int off,
      int len)
      throws IOException {
    if (fromClient) {
      pcap.packet(micros, c.ip, c.port, SERVER_IP, SERVER_PORT, seq, ack, flags, data, off, len);
    } else {
      pcap.packet(micros, SERVER_IP, SERVER_PORT, c.ip, c.port, seq, ack, flags, data, off, len);
    }
  }
}
