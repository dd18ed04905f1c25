package io.cqlrows.capture.digest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cqlrows.capture.Tshark;
import io.cqlrows.capture.gen.SyntheticCapture;
import io.cqlrows.capture.replay.FileReplay;
import io.cqlrows.capture.replay.ReplayListener;
import io.cqlrows.core.CqlResult;
import io.cqlrows.core.RowSink;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.testing.Corpus;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Holds the replay's response times and the digest's request counts to Wireshark's CQL dissector
 * (tshark), which shares nothing with them: for every response that both pair with a request, the
 * same connection, stream, opcode, capture time and response time, in the same order per stream;
 * and per request opcode, as many requests as the capture holds, counted by walking the raw client
 * streams (corpus) or by tshark (synthetic capture).
 *
 * <p><b>Where tshark and the replay may differ, and do not here.</b> The dissector pairs a response
 * with the latest request on its stream, and times it from the frame that completed the request to
 * the frame that completed the response; the replay pairs it with the oldest request still waiting
 * on its stream unless a later one was sent before it too (the same one when a client reuses a
 * stream only after its answer), from the capture time of the request's last byte to that of the
 * response's last byte (the same frames, as reassembly hands bytes on when the packet that
 * completes them arrives). Responses paired with no request differ in form only: tshark gives them
 * no response time, the replay an elapsed time of -1; EVENTs (stream -1) are no response to the
 * replay at all. The connection's opening requests (OPTIONS, STARTUP, REGISTER) are requests to
 * both, and the digest counts them under their opcodes like any other. Neither capture here has a
 * lost segment: after a gap the dissector gives up the connection's later PDUs.
 */
class DigestTsharkTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @BeforeAll
  static void tsharkIsInstalled() {
    assumeTrue(Tshark.available(), "tshark is not installed");
  }

  /** One response, as the replay or tshark saw it. */
  private record Timed(int opcode, long timestampMicros, long elapsedNanos) {}

  /** One CQL PDU that tshark dissected. */
  private record Pdu(
      String client,
      int stream,
      int opcode,
      boolean response,
      long frameMicros,
      long responseNanos) {}

  /** What one replay heard: the timed responses by client and stream, and the digest. */
  private static final class Replayed {
    final Map<String, List<Timed>> byStream = new TreeMap<>();
    long untimed;
    DigestReport report;
  }

  private static Replayed replay(Path file, FileReplay replay) throws IOException {
    Replayed out = new Replayed();
    Digest digest = new Digest(new Digest.Limits(10_000, 10_000, 0));
    FileReplay.Handler recorder =
        connection -> {
          String client = address(connection.flow().client());
          return new ReplayListener() {
            @Override
            public RowSink sinkFor(Response response) {
              return null;
            }

            @Override
            public void onResult(Response response, CqlResult result) {}

            @Override
            public void onError(Response response, CqlFrameException error) {}

            @Override
            public void onResponse(Response response) {
              if (response.elapsedNanos() < 0) {
                out.untimed++;
                return;
              }
              assertEquals(0, response.timestampNanos() % 1_000, "microsecond capture times");
              out.byStream
                  .computeIfAbsent(client + " #" + response.streamId(), k -> new ArrayList<>())
                  .add(
                      new Timed(
                          response.opcode().code(),
                          response.timestampNanos() / 1_000,
                          response.elapsedNanos()));
            }
          };
        };
    FileReplay.Summary summary = replay.replay(file, digest.handler(recorder));
    out.report = digest.report(file.getFileName().toString(), summary);
    return out;
  }

  private static String address(InetSocketAddress a) {
    return a.getAddress().getHostAddress() + ":" + a.getPort();
  }

  /** Every CQL PDU of the file, as tshark dissects it, in frame order. */
  private static List<Pdu> tshark(Path file, String... options) throws Exception {
    List<String> command = new ArrayList<>(List.of("tshark", "-r", file.toString()));
    command.addAll(List.of(options));
    command.addAll(
        List.of(
            "-o",
            "tcp.desegment_tcp_streams:TRUE",
            // a segment written before the one it follows still completes its PDU
            "-o",
            "tcp.reassemble_out_of_order:TRUE",
            "-Y",
            "cql",
            "-T",
            "json",
            "--no-duplicate-keys",
            "-j",
            "frame ip tcp cql"));
    Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    JsonNode frames;
    try (InputStream in = p.getInputStream()) {
      frames = JSON.readTree(in);
    }
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "tshark finished");
    assertEquals(0, p.exitValue(), "tshark's exit status");
    List<Pdu> out = new ArrayList<>();
    for (JsonNode f : frames) {
      JsonNode layers = f.path("_source").path("layers");
      long micros =
          new BigDecimal(layers.path("frame").path("frame.time_epoch").asText())
              .movePointRight(6)
              .longValueExact();
      JsonNode ip = layers.path("ip");
      JsonNode tcp = layers.path("tcp");
      JsonNode cql = layers.path("cql");
      for (JsonNode pdu : cql.isArray() ? cql : List.of(cql)) {
        boolean response = (Integer.decode(pdu.path("cql.version").asText()) & 0x80) != 0;
        String client =
            response
                ? ip.path("ip.dst").asText() + ":" + tcp.path("tcp.dstport").asText()
                : ip.path("ip.src").asText() + ":" + tcp.path("tcp.srcport").asText();
        JsonNode time = pdu.path("cql.response_time");
        out.add(
            new Pdu(
                client,
                pdu.path("cql.stream").asInt(),
                pdu.path("cql.opcode").asInt(),
                response,
                micros,
                time.isMissingNode()
                    ? -1
                    : new BigDecimal(time.asText()).movePointRight(9).longValueExact()));
      }
    }
    return out;
  }

  /** tshark's timed responses by client and stream, in frame order. */
  private static Map<String, List<Timed>> timed(List<Pdu> pdus) {
    Map<String, List<Timed>> out = new TreeMap<>();
    for (Pdu p : pdus) {
      if (p.response() && p.responseNanos() >= 0) {
        out.computeIfAbsent(p.client() + " #" + p.stream(), k -> new ArrayList<>())
            .add(new Timed(p.opcode(), p.frameMicros(), p.responseNanos()));
      }
    }
    return out;
  }

  /** tshark's requests by opcode name. */
  private static Map<String, Long> requests(List<Pdu> pdus) {
    Map<String, Long> out = new TreeMap<>();
    for (Pdu p : pdus) {
      if (!p.response()) {
        out.merge(Opcode.fromCode(p.opcode()).name(), 1L, Long::sum);
      }
    }
    return out;
  }

  /** The digest's requests by opcode: those answered and those not. */
  private static Map<String, Long> requests(DigestReport report) {
    Map<String, Long> out = new TreeMap<>();
    for (DigestReport.Entry e : report.opcodes()) {
      out.put(e.name(), e.count() + e.unanswered());
    }
    return out;
  }

  private static long size(Map<String, List<Timed>> byStream) {
    return byStream.values().stream().mapToLong(List::size).sum();
  }

  /** The digest's response times, over all opcodes, equal tshark's: as many, the same sum. */
  private static void sameTotals(DigestReport report, Map<String, List<Timed>> theirs) {
    long count = 0;
    long total = 0;
    for (DigestReport.Entry e : report.opcodes()) {
      if (e.times() != null) {
        count += e.times().count();
        total += e.times().total();
      }
    }
    assertEquals(size(theirs), count, "responses the digest timed");
    assertEquals(
        theirs.values().stream().flatMap(List::stream).mapToLong(Timed::elapsedNanos).sum(),
        total,
        "the digest's total response time, ns");
  }

  @Test
  void corpusResponseTimesAndRequestCounts() throws Exception {
    Path file = dir.resolve("a-v4.pcap");
    Files.write(file, Corpus.bytes("a-v4", "capture.pcap"));

    Replayed ours = replay(file, FileReplay.builder().build());
    List<Pdu> pdus = tshark(file, "-d", "tcp.port==19042,cql");
    Map<String, List<Timed>> theirs = timed(pdus);

    // every response of the capture is paired and timed, by both
    assertEquals(0, ours.untimed, "responses without a time");
    assertEquals(theirs, ours.byStream, "responses by client and stream");
    assertEquals(
        pdus.stream().filter(p -> p.response() && p.opcode() != Opcode.EVENT.code()).count(),
        size(ours.byStream),
        "every response tshark saw");
    assertEquals(40, size(ours.byStream), "responses compared");
    assertEquals(
        2,
        ours.byStream.keySet().stream()
            .map(k -> k.substring(0, k.indexOf(' ')))
            .distinct()
            .count());

    // requests by opcode: the raw client streams, tshark and the digest agree
    Map<String, Long> raw = new TreeMap<>();
    for (String conn : List.of("conn-00", "conn-01")) {
      for (Corpus.Envelope e : Corpus.envelopes(Corpus.bytes("a-v4", conn + ".c2s.bin"))) {
        raw.merge(Opcode.fromCode(e.opcode()).name(), 1L, Long::sum);
      }
    }
    assertEquals(
        Map.of(
            "OPTIONS",
            1L,
            "STARTUP",
            2L,
            "REGISTER",
            1L,
            "QUERY",
            27L,
            "PREPARE",
            3L,
            "EXECUTE",
            6L),
        raw,
        "the corpus's client streams");
    assertEquals(raw, requests(pdus), "tshark's requests");
    assertEquals(raw, requests(ours.report), "the digest's requests");
    // all answered: the capture ends after the last response
    for (DigestReport.Entry e : ours.report.opcodes()) {
      assertEquals(0, e.unanswered(), e.name());
      assertEquals(0, e.undecodable(), e.name());
    }
    sameTotals(ours.report, theirs);
  }

  @Test
  void syntheticResponseTimesAndRequestCounts() throws Exception {
    // no lost segment: after a gap tshark gives up a connection's later PDUs
    SyntheticCapture.Spec spec =
        SyntheticCapture.spec()
            .seed(21)
            .connections(8)
            .concurrency(8)
            .statements(10)
            .targetBytes(3_000_000)
            .errorRate(0.05)
            .reorderRate(0.02)
            .retransmitRate(0.01)
            .overlapRate(0.01)
            .unansweredRate(0.5)
            .maxInFlight(6)
            .build();
    Path file = dir.resolve("synthetic.pcap");
    SyntheticCapture.Expected e = SyntheticCapture.write(spec, file);
    assertTrue(e.reorders() > 0 && e.retransmissions() > 0 && e.overlaps() > 0, "TCP faults");

    Replayed ours = replay(file, FileReplay.builder().build());
    List<Pdu> pdus = tshark(file);
    Map<String, List<Timed>> theirs = timed(pdus);

    assertEquals(0, ours.untimed, "responses without a time");
    assertEquals(theirs, ours.byStream, "responses by client and stream");
    assertEquals(e.responses(), size(ours.byStream), "responses");
    sameTotals(ours.report, theirs);
    assertEquals(
        pdus.stream().filter(Pdu::response).count(), size(theirs), "tshark timed every response");

    Map<String, Long> sent = new TreeMap<>();
    e.requestsByOpcode().forEach((op, n) -> sent.put(Opcode.fromCode(op).name(), n));
    assertEquals(sent, requests(pdus), "tshark's requests");
    assertEquals(requests(pdus), requests(ours.report), "the digest's requests");
    assertEquals(
        e.statements().values().stream().mapToLong(s -> s.unanswered()).sum(),
        ours.report.opcodes().stream().mapToLong(DigestReport.Entry::unanswered).sum(),
        "unanswered");
    assertEquals(e.connections(), ours.report.connectionCount(), "connections");
  }
}
