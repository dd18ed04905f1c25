package io.cqlrows.cli;

import static io.cqlrows.netty.CqlTestFrames.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.cqlrows.capture.pcap.PcapWriter;
import io.cqlrows.netty.ScyllaSession;
import io.cqlrows.netty.frame.Compression;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code cqlrows replay} on a ScyllaDB v4 session with every extension on ({@link ScyllaSession}),
 * as raw byte streams and as a pcap: the extensions come from the captured STARTUP, so every
 * EXECUTE result prints with its prepared column names and decoded values.
 */
class ScyllaReplayCliTest {
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(Compression.class)
  void rawStreamsReplayWithEveryExecuteResultDecoded(Compression compression) throws IOException {
    ScyllaSession.Bytes session = ScyllaSession.write(compression);
    Path s2c = dir.resolve("scylla.s2c.bin");
    Files.write(s2c, session.serverToClient());
    Files.write(dir.resolve("scylla.c2s.bin"), session.clientToServer());
    assertEveryExecuteDecoded(CliRun.of("replay", s2c.toString()));
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void aPcapReplaysWithEveryExecuteResultDecoded(Compression compression) throws IOException {
    ScyllaSession.Bytes session = ScyllaSession.write(compression);
    Path pcap = dir.resolve("scylla.pcap");
    try (OutputStream out = Files.newOutputStream(pcap);
        PcapWriter writer = PcapWriter.builder(out).build()) {
      writer.writeHandshake();
      writer.writeClientToServer(session.clientToServer(), 0, session.clientToServer().length);
      writer.writeServerToClient(session.serverToClient(), 0, session.serverToClient().length);
    }
    assertEveryExecuteDecoded(CliRun.of("replay", pcap.toString()));
  }

  private static void assertEveryExecuteDecoded(CliRun r) {
    assertEquals(0, r.status(), r.err());
    List<JsonNode> lines = r.out().lines().map(l -> json(l)).toList();
    assertEquals(5, lines.size(), "the ROWS results: QUERY, four EXECUTEs");
    for (JsonNode line : lines) {
      assertTrue(line.get("error") == null, line.toString());
    }
    JsonNode first = lines.get(1);
    assertEquals(ScyllaSession.SELECT, first.get("query").asText());
    assertEquals(List.of("id", "name", "embedding"), names(first));
    assertEquals("[1,\"ada\",[\"1.0\",\"2.0\",\"3.0\"]]", first.get("rows").get(0).toString());
    JsonNode lwt = lines.get(2);
    assertEquals(ScyllaSession.UPDATE_IF, lwt.get("query").asText());
    assertEquals(List.of("[applied]"), names(lwt));
    assertEquals("[true]", lwt.get("rows").get(0).toString());
    assertEquals(List.of("id", "name", "embedding", "email"), names(lines.get(3)));
    assertEquals(List.of("id", "name", "embedding", "email"), names(lines.get(4)));
    assertEquals(
        "[1,\"ada\",[\"1.0\",\"2.0\",\"3.0\"],null]", lines.get(4).get("rows").get(0).toString());
  }

  /** Without its client side, the user says what the STARTUP said. */
  @Test
  void withoutTheClientSideTheFlagsTurnTheExtensionsOn() throws IOException {
    Path s2c = dir.resolve("alone.bin");
    Files.write(s2c, ScyllaSession.write(Compression.LZ4).serverToClient());

    CliRun blind = CliRun.of("replay", s2c.toString());
    assertEquals(1, blind.status(), "PREPARED results it cannot read: " + blind.err());
    assertTrue(blind.out().lines().anyMatch(l -> json(l).has("error")), blind.out());

    for (String[] flags :
        new String[][] {{"--scylla-metadata-id"}, {"--extension", "SCYLLA_USE_METADATA_ID"}}) {
      String[] args = new String[flags.length + 2];
      args[0] = "replay";
      System.arraycopy(flags, 0, args, 1, flags.length);
      args[args.length - 1] = s2c.toString();
      CliRun r = CliRun.of(args);
      assertEquals(0, r.status(), r.err());
      assertEquals(5, r.out().lines().count());
      assertTrue(r.out().lines().noneMatch(l -> json(l).has("error")), r.out());
    }
  }

  @Test
  void anUnknownExtensionIsAUsageError() {
    CliRun r = CliRun.of("replay", "--extension", "SCYLLA_SHARD", "x.bin");
    assertEquals(2, r.status());
    assertTrue(r.err().contains("SCYLLA_USE_METADATA_ID"), r.err());
  }

  @Test
  void statsCountsTheSession() throws IOException {
    ScyllaSession.Bytes session = ScyllaSession.write(Compression.NONE);
    Path s2c = dir.resolve("scylla.s2c.bin");
    Files.write(s2c, session.serverToClient());
    Files.write(dir.resolve("scylla.c2s.bin"), session.clientToServer());
    CliRun r = CliRun.of("stats", s2c.toString());
    assertEquals(0, r.status(), r.err());
    assertTrue(r.out().contains("results: 2 prepared, 5 rows\n"), r.out());
    assertTrue(r.out().contains("rows: 6, cells: 16 (1 null)"), r.out());
  }

  private static List<String> names(JsonNode line) {
    return java.util.stream.StreamSupport.stream(line.get("columns").spliterator(), false)
        .map(c -> c.get("name").asText())
        .toList();
  }
}
