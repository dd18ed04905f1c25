package io.cqlrows.capture.gen;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.cqlrows.capture.Tshark;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks the synthetic capture generator against its own expectation, through readers that share
 * nothing with it: a minimal pcap reader here (file format, packet headers) and, when it is
 * installed, Wireshark's tshark (CQL requests and response times).
 */
class SyntheticCaptureTest {
  /** A few MB with every fault, errors and unanswered requests. */
  private static final SyntheticCapture.Spec FAULTY =
      SyntheticCapture.spec()
          .seed(7)
          .connections(12)
          .concurrency(5)
          .statements(12)
          .targetBytes(3_000_000)
          .errorRate(0.05)
          .reorderRate(0.02)
          .retransmitRate(0.01)
          .overlapRate(0.01)
          .lossRate(0.005)
          .unansweredRate(0.5)
          .build();

  /** A generated capture in memory. */
  private static final class Capture {
    final byte[] file;
    final SyntheticCapture.Expected expected;

    Capture(byte[] file, SyntheticCapture.Expected expected) {
      this.file = file;
      this.expected = expected;
    }

    byte[] file() {
      return file;
    }

    SyntheticCapture.Expected expected() {
      return expected;
    }
  }

  private static Capture generate(SyntheticCapture.Spec spec) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    SyntheticCapture.Expected expected = SyntheticCapture.write(spec, out);
    return new Capture(out.toByteArray(), expected);
  }

  /** What the minimal reader found in a file. */
  private static final class PcapFacts {
    long packets;
    long bytes;
    long timestampDecreases;
    long syns;
    long fins;
    int maxPayload;
  }

  /**
   * Reads a classic pcap file of Ethernet/IPv4/TCP packets record by record, checking each record
   * header and each packet's header lengths and IPv4 checksum.
   */
  private static PcapFacts read(byte[] file) {
    ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
    int magic = b.getInt();
    if (magic == 0xd4c3b2a1) {
      b.order(ByteOrder.BIG_ENDIAN);
      magic = 0xa1b2c3d4;
    }
    assertEquals(0xa1b2c3d4, magic, "classic pcap, microseconds");
    assertEquals(2, b.getShort());
    assertEquals(4, b.getShort());
    b.getInt(); // thiszone
    b.getInt(); // sigfigs
    int snaplen = b.getInt();
    assertEquals(262_144, snaplen);
    assertEquals(1, b.getInt(), "link type Ethernet");
    PcapFacts facts = new PcapFacts();
    long last = Long.MIN_VALUE;
    while (b.hasRemaining()) {
      assertTrue(b.remaining() >= 16, "a whole record header at " + b.position());
      long micros = (b.getInt() & 0xffffffffL) * 1_000_000 + b.getInt();
      int incl = b.getInt();
      int orig = b.getInt();
      assertEquals(orig, incl, "whole packets");
      assertTrue(incl <= snaplen && incl <= b.remaining(), "record length " + incl);
      if (micros < last) {
        facts.timestampDecreases++;
      }
      last = micros;
      packet(b.slice(b.position(), incl).order(ByteOrder.BIG_ENDIAN), facts);
      b.position(b.position() + incl);
      facts.packets++;
    }
    facts.bytes = b.position();
    return facts;
  }

  private static void packet(ByteBuffer p, PcapFacts facts) {
    assertEquals(0x0800, p.getShort(12) & 0xffff, "IPv4");
    assertEquals(0x45, p.get(14), "IPv4 without options");
    assertEquals(p.limit() - 14, p.getShort(16) & 0xffff, "IPv4 total length");
    assertEquals(6, p.get(23), "TCP");
    byte[] ip = new byte[20];
    p.get(14, ip);
    assertEquals(0, PcapOut.checksum(ip, 0, 20), "IPv4 header checksum");
    int tcp = 34;
    int payload = p.limit() - tcp - ((p.get(tcp + 12) >>> 4) & 0xf) * 4;
    facts.maxPayload = Math.max(facts.maxPayload, payload);
    int flags = p.get(tcp + 13);
    facts.syns += (flags & PcapOut.SYN) != 0 ? 1 : 0;
    facts.fins += (flags & PcapOut.FIN) != 0 ? 1 : 0;
    int src = p.getShort(tcp) & 0xffff;
    int dst = p.getShort(tcp + 2) & 0xffff;
    assertTrue(src == 9042 || dst == 9042, "to or from the server port");
  }

  @Test
  void fileHoldsTheExpectedPacketsAndBytes() throws IOException {
    Capture c = generate(FAULTY);
    PcapFacts facts = read(c.file());

    assertEquals(c.expected().packets(), facts.packets);
    assertEquals(c.expected().fileBytes(), facts.bytes);
    assertEquals(c.file().length, c.expected().fileBytes());
    // timestamps go back exactly once per reordered pair (the earlier segment written later)
    assertEquals(c.expected().reorders(), facts.timestampDecreases);
    assertTrue(facts.maxPayload <= 1448, "segments of at most 1448 bytes: " + facts.maxPayload);
    assertEquals(1448, facts.maxPayload, "large responses fill segments");
    // SYN and SYN-ACK, then a FIN each way, per connection
    assertEquals(2L * FAULTY.connections(), facts.syns);
    assertEquals(2L * FAULTY.connections(), facts.fins);
  }

  @Test
  void theSameSpecGivesTheSameBytes(@TempDir Path dir) throws IOException {
    Capture a = generate(FAULTY);
    Capture b = generate(FAULTY);
    Path file = dir.resolve("c.pcap");
    SyntheticCapture.Expected toFile = SyntheticCapture.write(FAULTY, file);

    assertArrayEquals(a.file(), b.file());
    assertArrayEquals(a.file(), Files.readAllBytes(file));
    assertEquals(a.expected(), b.expected());
    assertEquals(a.expected(), toFile);
    SyntheticCapture.Spec other =
        SyntheticCapture.spec().seed(8).connections(12).targetBytes(3_000_000).build();
    assertFalse(Arrays.equals(a.file(), generate(other).file()));
  }

  @Test
  void theExpectationAddsUp() throws IOException {
    SyntheticCapture.Expected e = generate(FAULTY).expected();

    Map<Integer, Long> byOpcode = new TreeMap<>();
    byOpcode.put(SyntheticCapture.OPTIONS, (long) e.connections());
    byOpcode.put(SyntheticCapture.STARTUP, (long) e.connections());
    long responses = 2L * e.connections();
    long sumNanos = 0;
    long lost = 0;
    Map<Integer, Long> errors = new TreeMap<>();
    for (Map.Entry<StatementKey, StatementStats> en : e.statements().entrySet()) {
      StatementStats s = en.getValue();
      s.requestsByOpcode().forEach((op, n) -> byOpcode.merge(op, n, Long::sum));
      s.errorsByCode().forEach((code, n) -> errors.merge(code, n, Long::sum));
      assertEquals(s.requests(), s.responses() + s.lost() + s.unanswered(), en.getKey().text());
      assertTrue(s.responses() == 0 || s.minResponseNanos() > 0, en.getKey().text());
      assertTrue(s.minResponseNanos() <= s.maxResponseNanos(), en.getKey().text());
      assertTrue(s.sumResponseNanos() >= s.minResponseNanos() * s.responses());
      assertTrue(s.sumResponseNanos() <= s.maxResponseNanos() * s.responses());
      assertTrue(s.pages() <= s.responses() - s.errors());
      responses += s.responses();
      sumNanos += s.sumResponseNanos();
      lost += s.lost();
      // the statement's numbers by opcode add up to its numbers
      Map<Integer, StatementStats> ops = e.statementsByOpcode().get(en.getKey());
      assertEquals(s.requestsByOpcode().keySet(), ops.keySet(), en.getKey().text());
      ops.forEach((op, o) -> assertEquals(Map.of(op, o.requests(op)), o.requestsByOpcode()));
      assertEquals(s.responses(), ops.values().stream().mapToLong(StatementStats::responses).sum());
      assertEquals(s.rows(), ops.values().stream().mapToLong(StatementStats::rows).sum());
      assertEquals(
          s.responseBytes(), ops.values().stream().mapToLong(StatementStats::responseBytes).sum());
      assertEquals(s.pages(), ops.values().stream().mapToLong(StatementStats::pages).sum());
      assertEquals(
          s.sumResponseNanos(),
          ops.values().stream().mapToLong(StatementStats::sumResponseNanos).sum());
      assertEquals(
          s.unanswered(), ops.values().stream().mapToLong(StatementStats::unanswered).sum());
      assertEquals(s.lost(), ops.values().stream().mapToLong(StatementStats::lost).sum());
      assertEquals(s.errors(), ops.values().stream().mapToLong(StatementStats::errors).sum());
      assertEquals(
          s.maxResponseNanos(),
          ops.values().stream().mapToLong(StatementStats::maxResponseNanos).max().orElse(0));
      assertEquals(
          s.minResponseNanos(),
          ops.values().stream()
              .filter(o -> o.responses() > 0)
              .mapToLong(StatementStats::minResponseNanos)
              .min()
              .orElse(0));
    }
    assertEquals(e.requestsByOpcode(), byOpcode);
    assertEquals(responses, e.responses());
    assertTrue(sumNanos < e.sumResponseNanos(), "SUPPORTED and READY take time too");
    List<ConnectionStats> conns = e.connectionStats();
    assertEquals(e.connections(), conns.size());
    assertEquals(e.requests(), conns.stream().mapToLong(ConnectionStats::requests).sum());
    assertEquals(e.responses(), conns.stream().mapToLong(ConnectionStats::responses).sum());
    assertEquals(lost, conns.stream().mapToLong(ConnectionStats::lostResponses).sum());
    assertEquals(e.lostBytes(), conns.stream().mapToLong(ConnectionStats::lostServerBytes).sum());
    assertEquals(e.lostSegments(), conns.stream().mapToLong(ConnectionStats::lostSegments).sum());
    for (int i = 0; i < conns.size(); i++) {
      ConnectionStats c = conns.get(i);
      assertEquals(i, c.index());
      assertEquals(32_768 + i, c.clientPort());
      assertEquals(c.requests(), c.responses() + c.lostResponses() + c.unanswered());
    }
    // every kind of request, result, error and fault is there
    for (int op :
        new int[] {
          SyntheticCapture.QUERY,
          SyntheticCapture.PREPARE,
          SyntheticCapture.EXECUTE,
          SyntheticCapture.BATCH
        }) {
      assertTrue(e.requests(op) > 0, "opcode " + op);
    }
    assertEquals(
        List.of(
            SyntheticCapture.UNAVAILABLE, SyntheticCapture.READ_TIMEOUT, SyntheticCapture.INVALID),
        List.copyOf(errors.keySet()));
    assertTrue(e.statements().keySet().stream().anyMatch(StatementKey::isBatch));
    long pages = e.statements().values().stream().mapToLong(StatementStats::pages).sum();
    long selects =
        e.statements().entrySet().stream()
            .filter(en -> en.getKey().text().startsWith("SELECT"))
            .mapToLong(
                en ->
                    en.getValue().requests(SyntheticCapture.QUERY)
                        + en.getValue().requests(SyntheticCapture.EXECUTE))
            .sum();
    assertTrue(pages > 0 && pages < selects, "pages " + pages + " of " + selects);
    assertTrue(e.reorders() > 0 && e.retransmissions() > 0 && e.overlaps() > 0);
    assertTrue(e.lostSegments() > 0 && lost > 0 && lost <= e.lostSegments());
    assertTrue(e.statements().values().stream().mapToLong(StatementStats::unanswered).sum() > 0);
  }

  @Test
  void tsharkFindsTheExpectedRequestsAndResponseTimes(@TempDir Path dir) throws Exception {
    assumeTrue(Tshark.available(), "tshark is not on the PATH");
    // no lost segment: Wireshark gives up a connection's later PDUs after a gap
    SyntheticCapture.Spec spec =
        SyntheticCapture.spec()
            .seed(11)
            .connections(12)
            .concurrency(5)
            .targetBytes(3_000_000)
            .errorRate(0.05)
            .reorderRate(0.02)
            .retransmitRate(0.01)
            .overlapRate(0.01)
            .unansweredRate(0.5)
            .build();
    Path file = dir.resolve("synthetic.pcap");
    SyntheticCapture.Expected e = SyntheticCapture.write(spec, file);
    Process tshark =
        new ProcessBuilder(
                "tshark",
                "-r",
                file.toString(),
                "-o",
                "tcp.desegment_tcp_streams:TRUE",
                // a segment written before the one it follows still completes its PDU
                "-o",
                "tcp.reassemble_out_of_order:TRUE",
                "-Y",
                "cql",
                "-T",
                "fields",
                "-e",
                "cql.opcode",
                "-e",
                "cql.response_time")
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    List<String> lines = new String(tshark.getInputStream().readAllBytes(), UTF_8).lines().toList();
    assertTrue(tshark.waitFor(60, TimeUnit.SECONDS), "tshark finished");
    assertEquals(0, tshark.exitValue());

    Map<Integer, Long> requests = new TreeMap<>();
    long responses = 0;
    long times = 0;
    BigDecimal seconds = BigDecimal.ZERO;
    for (String line : lines) {
      String[] f = line.split("\t", -1);
      for (String op : f[0].isEmpty() ? new String[0] : f[0].split(",")) {
        int opcode = Integer.parseInt(op);
        if (opcode == 0 || opcode == 2 || opcode == 6 || opcode == 8) {
          responses++;
        } else {
          requests.merge(opcode, 1L, Long::sum);
        }
      }
      for (String t : f.length < 2 || f[1].isEmpty() ? new String[0] : f[1].split(",")) {
        seconds = seconds.add(new BigDecimal(t));
        times++;
      }
    }
    assertEquals(e.requestsByOpcode(), requests, "requests by opcode");
    assertEquals(e.responses(), responses, "responses");
    assertEquals(e.responses(), times, "response times");
    long nanos = seconds.movePointRight(9).longValueExact();
    // microsecond timestamps, so the sums agree to the nanosecond
    assertEquals(e.sumResponseNanos(), nanos, "sum of response times, ns");
  }
}
