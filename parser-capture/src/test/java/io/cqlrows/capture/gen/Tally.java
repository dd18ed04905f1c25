package io.cqlrows.capture.gen;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts what the generator writes, as it writes it, into a {@link SyntheticCapture.Expected}. Not
 * thread-safe.
 */
final class Tally {
  /** One statement's counts. */
  private static final class Stat {
    final Map<Integer, Long> requestsByOpcode = new TreeMap<>();
    final Map<Integer, Long> errorsByCode = new TreeMap<>();
    long responses;
    long rows;
    long responseBytes;
    long pages;
    long minNanos = Long.MAX_VALUE;
    long maxNanos;
    long sumNanos;
    long unanswered;
    long lost;

    /** The same counts per request opcode; empty in the per-opcode stats themselves. */
    final Map<Integer, Stat> byOpcode = new TreeMap<>();

    Stat of(int opcode) {
      return byOpcode.computeIfAbsent(opcode, k -> new Stat());
    }

    StatementStats stats() {
      return new StatementStats(
          requestsByOpcode,
          responses,
          errorsByCode,
          rows,
          responseBytes,
          pages,
          responses == 0 ? 0 : minNanos,
          maxNanos,
          sumNanos,
          unanswered,
          lost);
    }
  }

  private final List<Statement> statements;
  private final Stat[] stats;
  private final Map<Integer, Long> requestsByOpcode = new TreeMap<>();
  private final List<ConnectionStats> connections = new ArrayList<>();
  private long responses;
  private long sumResponseNanos;
  long reorders;
  long retransmissions;
  long overlaps;
  long lostSegments;
  long lostBytes;

  Tally(List<Statement> statements) {
    this.statements = statements;
    this.stats = new Stat[statements.size()];
    for (int i = 0; i < stats.length; i++) {
      stats[i] = new Stat();
    }
  }

  /** A request; {@code s} is null for OPTIONS and STARTUP. */
  void request(Statement s, int opcode) {
    requestsByOpcode.merge(opcode, 1L, Long::sum);
    if (s != null) {
      stats[s.index].requestsByOpcode.merge(opcode, 1L, Long::sum);
      stats[s.index].of(opcode).requestsByOpcode.merge(opcode, 1L, Long::sum);
    }
  }

  /**
   * A response complete in the file.
   *
   * @param s the statement, null for SUPPORTED and READY
   * @param opcode the request's opcode
   * @param envelopeBytes 9 + the body length
   * @param errorCode the ERROR's code, or 0
   * @param rows the Rows result's rows_count, or -1 for anything else
   */
  void response(Statement s, int opcode, long nanos, int envelopeBytes, int errorCode, int rows) {
    responses++;
    sumResponseNanos += nanos;
    if (s == null) {
      return;
    }
    add(stats[s.index], nanos, envelopeBytes, errorCode, rows);
    add(stats[s.index].of(opcode), nanos, envelopeBytes, errorCode, rows);
  }

  private static void add(Stat st, long nanos, int envelopeBytes, int errorCode, int rows) {
    st.responses++;
    st.responseBytes += envelopeBytes;
    st.minNanos = Math.min(st.minNanos, nanos);
    st.maxNanos = Math.max(st.maxNanos, nanos);
    st.sumNanos += nanos;
    if (errorCode != 0) {
      st.errorsByCode.merge(errorCode, 1L, Long::sum);
    }
    if (rows >= 0) {
      st.rows += rows;
      st.pages++;
    }
  }

  /** A response with a segment never written. */
  void lost(Statement s, int opcode) {
    if (s != null) {
      stats[s.index].lost++;
      stats[s.index].of(opcode).lost++;
    }
  }

  /** A request with no response in the file. */
  void unanswered(Statement s, int opcode) {
    if (s != null) {
      stats[s.index].unanswered++;
      stats[s.index].of(opcode).unanswered++;
    }
  }

  void connection(ConnectionStats c) {
    connections.add(c);
  }

  SyntheticCapture.Expected expected(long packets, long fileBytes) {
    Map<StatementKey, StatementStats> byKey = new LinkedHashMap<>();
    Map<StatementKey, Map<Integer, StatementStats>> byKeyAndOpcode = new LinkedHashMap<>();
    for (Statement s : statements) {
      Stat st = stats[s.index];
      if (st.requestsByOpcode.isEmpty()) {
        continue;
      }
      byKey.put(s.key, st.stats());
      Map<Integer, StatementStats> byOpcode = new TreeMap<>();
      st.byOpcode.forEach((op, o) -> byOpcode.put(op, o.stats()));
      byKeyAndOpcode.put(s.key, byOpcode);
    }
    connections.sort(Comparator.comparingInt(ConnectionStats::index));
    return new SyntheticCapture.Expected(
        packets,
        fileBytes,
        connections.size(),
        requestsByOpcode,
        byKey,
        byKeyAndOpcode,
        connections,
        responses,
        sumResponseNanos,
        reorders,
        retransmissions,
        overlaps,
        lostSegments,
        lostBytes);
  }
}
