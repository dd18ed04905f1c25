package io.cqlrows.capture.digest;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.capture.gen.ConnectionStats;
import io.cqlrows.capture.gen.StatementKey;
import io.cqlrows.capture.gen.StatementStats;
import io.cqlrows.capture.gen.SyntheticCapture;
import io.cqlrows.capture.replay.FileReplay;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Holds the digest of synthetic captures (many interleaved connections, every TCP fault, lost
 * segments, errors, pages and unanswered requests) to the generator's own bookkeeping, which shares
 * no code with the replay or the digest.
 *
 * <p><b>What the digest should say of a lost segment.</b> The generator never loses a response's
 * first segment, so the response's header is in the file, but not all of its bytes ({@link
 * StatementStats#lost()}). Reassembly waits for the missing bytes and gives the hole up ({@link
 * io.cqlrows.capture.pcap.TcpFlows}); the replay then drops the envelope in progress and decodes
 * again from the next one, where its header's length says it starts ({@link
 * io.cqlrows.capture.replay.ReplayStream#gap}). The response is never decoded (it is no answer the
 * digest could call undecodable: its bytes are not all there), so its request is still waiting when
 * a later request on its stream is answered, or when the connection ends: it is reported
 * unanswered. So for every statement, opcode and connection: {@code count == responses}, {@code
 * unanswered == unanswered + lost}, {@code undecodable == 0}, and every other number counts the
 * complete responses only, exactly as the generator does. In particular no complete response may be
 * lost with the one that had the hole, not even one between two holes.
 */
class DigestSyntheticTest {
  private static final int CONNECTIONS = 24;

  private static SyntheticCapture.Spec spec(long seed) {
    return SyntheticCapture.spec()
        .seed(seed)
        .connections(CONNECTIONS)
        .concurrency(8)
        .statements(12)
        .targetBytes(20L << 20)
        .errorRate(0.04)
        .reorderRate(0.01)
        .retransmitRate(0.005)
        .overlapRate(0.004)
        .lossRate(0.002)
        .unansweredRate(0.5)
        .maxInFlight(6)
        .build();
  }

  @ParameterizedTest
  @ValueSource(longs = {3, 1234, 987_654_321})
  void theDigestSaysWhatTheGeneratorWrote(long seed, @TempDir Path dir) throws IOException {
    Path file = dir.resolve("synthetic-" + seed + ".pcap");
    SyntheticCapture.Expected e = SyntheticCapture.write(spec(seed), file);
    // the faults this test is about are really in the file
    assertTrue(e.reorders() > 0 && e.retransmissions() > 0 && e.overlaps() > 0, "TCP faults");
    long lost = e.statements().values().stream().mapToLong(StatementStats::lost).sum();
    long unanswered = e.statements().values().stream().mapToLong(StatementStats::unanswered).sum();
    assertTrue(lost > 0 && unanswered > 0, "lost " + lost + ", unanswered " + unanswered);

    DigestReport r =
        Digest.of(file, FileReplay.builder().build(), new Digest.Limits(10_000, 10_000, 0));

    List<Executable> checks = new ArrayList<>();
    checks.add(() -> assertEquals(e.connections(), r.tcpConnections(), "TCP connections"));
    checks.add(() -> assertEquals(e.connections(), r.cqlConnections(), "CQL connections"));
    checks.add(() -> assertEquals(e.connections(), r.connectionCount(), "connections listed"));
    checks.add(() -> assertTrue(r.timed(), "a pcap has times"));
    checks.add(() -> assertEquals(List.of(), r.notes(), "nothing folded"));
    statements(e, r, checks);
    opcodes(e, r, lost, unanswered, checks);
    connections(e, r, checks);
    assertAll("seed " + seed, checks);
  }

  /** What one digest entry should hold. */
  private record Want(
      long count,
      Map<Integer, Long> errorCodes,
      long unanswered,
      long rows,
      long responseBytes,
      long pages,
      long minNanos,
      long maxNanos,
      long totalNanos) {
    static Want of(StatementStats s) {
      return new Want(
          s.responses(),
          s.errorsByCode(),
          s.unanswered() + s.lost(), // see the class comment
          s.rows(),
          s.responseBytes(),
          s.pages(),
          s.minResponseNanos(),
          s.maxResponseNanos(),
          s.sumResponseNanos());
    }

    /** The sum of two, for entries that gather several statements. */
    Want plus(Want o) {
      Map<Integer, Long> codes = new TreeMap<>(errorCodes);
      o.errorCodes.forEach((k, v) -> codes.merge(k, v, Long::sum));
      return new Want(
          count + o.count,
          codes,
          unanswered + o.unanswered,
          rows + o.rows,
          responseBytes + o.responseBytes,
          pages + o.pages,
          count == 0 ? o.minNanos : o.count == 0 ? minNanos : Math.min(minNanos, o.minNanos),
          Math.max(maxNanos, o.maxNanos),
          totalNanos + o.totalNanos);
    }
  }

  private static void check(String what, Want w, DigestReport.Entry got, List<Executable> checks) {
    if (got == null) {
      checks.add(() -> assertNotNull(got, what + ": no digest entry"));
      return;
    }
    checks.add(() -> assertEquals(w.count(), got.count(), what + ": count"));
    long errors = w.errorCodes().values().stream().mapToLong(Long::longValue).sum();
    checks.add(() -> assertEquals(errors, got.errors(), what + ": errors"));
    checks.add(() -> assertEquals(w.errorCodes(), got.errorCodes(), what + ": errors by code"));
    checks.add(() -> assertEquals(0, got.undecodable(), what + ": undecodable"));
    checks.add(() -> assertEquals(w.unanswered(), got.unanswered(), what + ": unanswered"));
    checks.add(() -> assertEquals(w.rows(), got.rows(), what + ": rows"));
    checks.add(() -> assertEquals(w.responseBytes(), got.responseBytes(), what + ": bytes"));
    checks.add(() -> assertEquals(w.pages(), got.pages(), what + ": pages"));
    DigestReport.Times t = got.times();
    if (w.count() == 0) {
      checks.add(() -> assertNull(t, what + ": no times"));
      return;
    }
    if (t == null) {
      checks.add(() -> assertNotNull(t, what + ": times"));
      return;
    }
    checks.add(() -> assertEquals(w.count(), t.count(), what + ": times counted"));
    checks.add(() -> assertEquals(w.minNanos(), t.min(), what + ": min ns"));
    checks.add(() -> assertEquals(w.maxNanos(), t.max(), what + ": max ns"));
    checks.add(() -> assertEquals(w.totalNanos(), t.total(), what + ": total ns"));
  }

  /**
   * Per statement. The generator keys a prepared statement's PREPARE and EXECUTE requests together,
   * and keeps their numbers apart in {@link SyntheticCapture.Expected#statementsByOpcode()}; the
   * digest lists QUERY, EXECUTE and BATCH requests by statement, named by their text (an EXECUTE by
   * its PREPARE's text, a BATCH by {@code "BATCH: "} and its statements joined by {@code "; "}),
   * and a QUERY and an EXECUTE of the same text would be two entries of kinds QUERY and EXECUTE. So
   * each (key, opcode) of the generator but PREPARE is one digest entry, found by name and kind;
   * the PREPAREs are only counted by opcode (see {@link #opcodes}).
   */
  private static void statements(
      SyntheticCapture.Expected e, DigestReport r, List<Executable> checks) {
    Map<String, DigestReport.Entry> byName = new HashMap<>();
    for (DigestReport.Entry en : r.statements()) {
      DigestReport.Entry before = byName.put(en.kind() + " " + en.name(), en);
      checks.add(() -> assertNull(before, "one entry per kind and name: " + en.name()));
    }
    int expectedEntries = 0;
    for (Map.Entry<StatementKey, Map<Integer, StatementStats>> k :
        e.statementsByOpcode().entrySet()) {
      StatementKey key = k.getKey();
      String name =
          key.isBatch() ? "BATCH: " + String.join("; ", key.batchStatements()) : key.text();
      for (Map.Entry<Integer, StatementStats> op : k.getValue().entrySet()) {
        String kind = kind(op.getKey());
        if (kind.equals("PREPARE")) {
          continue;
        }
        expectedEntries++;
        check(kind + " " + name, Want.of(op.getValue()), byName.get(kind + " " + name), checks);
      }
    }
    int n = expectedEntries;
    checks.add(() -> assertEquals(n, r.statements().size(), "statements listed"));
    checks.add(() -> assertEquals(n, r.statementCount(), "statement count"));
  }

  /** Per request opcode: the statements' sums, and one OPTIONS and STARTUP per connection. */
  private static void opcodes(
      SyntheticCapture.Expected e,
      DigestReport r,
      long lost,
      long unanswered,
      List<Executable> checks) {
    Map<String, Want> want = new TreeMap<>();
    for (Map<Integer, StatementStats> ops : e.statementsByOpcode().values()) {
      ops.forEach((op, s) -> want.merge(kind(op), Want.of(s), Want::plus));
    }
    Map<String, DigestReport.Entry> got = new TreeMap<>();
    r.opcodes().forEach(en -> got.put(en.name(), en));
    checks.add(
        () ->
            assertEquals(
                List.of("BATCH", "EXECUTE", "OPTIONS", "PREPARE", "QUERY", "STARTUP"),
                List.copyOf(got.keySet()),
                "opcodes: no (unknown), nothing else"));
    want.forEach((op, w) -> check("opcode " + op, w, got.get(op), checks));
    for (String op : List.of("OPTIONS", "STARTUP")) {
      DigestReport.Entry en = got.get(op);
      checks.add(() -> assertNotNull(en, op));
      if (en != null) {
        checks.add(() -> assertEquals(e.connections(), en.count(), op + " answered"));
        checks.add(() -> assertEquals(0, en.unanswered(), op + " unanswered"));
        checks.add(() -> assertEquals(0, en.errors(), op + " errors"));
      }
    }
    // requests: answered + unanswered, by opcode, equal what was sent
    Map<Integer, Long> requests = new TreeMap<>();
    for (DigestReport.Entry en : r.opcodes()) {
      requests.put(opcode(en.name()), en.count() + en.unanswered());
    }
    checks.add(() -> assertEquals(e.requestsByOpcode(), requests, "requests by opcode"));
    // totals over all opcodes, SUPPORTED and READY included
    long count = r.opcodes().stream().mapToLong(DigestReport.Entry::count).sum();
    long timed =
        r.opcodes().stream().mapToLong(en -> en.times() == null ? 0 : en.times().count()).sum();
    long total =
        r.opcodes().stream().mapToLong(en -> en.times() == null ? 0 : en.times().total()).sum();
    long gaveUp = r.opcodes().stream().mapToLong(DigestReport.Entry::unanswered).sum();
    checks.add(() -> assertEquals(e.responses(), count, "responses"));
    checks.add(() -> assertEquals(e.responses(), timed, "responses timed"));
    checks.add(() -> assertEquals(e.sumResponseNanos(), total, "sum of response times, ns"));
    checks.add(() -> assertEquals(unanswered + lost, gaveUp, "unanswered, lost included"));
  }

  /** Per connection, found by the client's address and port. */
  private static void connections(
      SyntheticCapture.Expected e, DigestReport r, List<Executable> checks) {
    Map<String, DigestReport.Entry> byClient = new HashMap<>();
    // named "client -> server"
    r.connections().forEach(en -> byClient.put(en.name().substring(0, en.name().indexOf(' ')), en));
    for (ConnectionStats c : e.connectionStats()) {
      String client = c.clientAddress() + ":" + c.clientPort();
      DigestReport.Entry en = byClient.get(client);
      checks.add(() -> assertNotNull(en, client));
      if (en == null) {
        continue;
      }
      checks.add(() -> assertEquals(c.responses(), en.count(), client + ": count"));
      checks.add(
          () ->
              assertEquals(
                  c.unanswered() + c.lostResponses(), en.unanswered(), client + ": unanswered"));
      checks.add(() -> assertEquals(0, en.undecodable(), client + ": undecodable"));
    }
  }

  private static String kind(int opcode) {
    return switch (opcode) {
      case SyntheticCapture.OPTIONS -> "OPTIONS";
      case SyntheticCapture.STARTUP -> "STARTUP";
      case SyntheticCapture.QUERY -> "QUERY";
      case SyntheticCapture.PREPARE -> "PREPARE";
      case SyntheticCapture.EXECUTE -> "EXECUTE";
      case SyntheticCapture.BATCH -> "BATCH";
      default -> throw new IllegalArgumentException("opcode " + opcode);
    };
  }

  private static int opcode(String kind) {
    return switch (kind) {
      case "OPTIONS" -> SyntheticCapture.OPTIONS;
      case "STARTUP" -> SyntheticCapture.STARTUP;
      case "QUERY" -> SyntheticCapture.QUERY;
      case "PREPARE" -> SyntheticCapture.PREPARE;
      case "EXECUTE" -> SyntheticCapture.EXECUTE;
      case "BATCH" -> SyntheticCapture.BATCH;
      default -> -1;
    };
  }
}
