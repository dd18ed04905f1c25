package io.cqlrows.capture.pcap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.testing.Corpus;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TcpReassemblerCorpusTest {

  @ParameterizedTest
  @ValueSource(strings = {"a-v4", "b-v5"})
  void reassemblesTheRecordedConnectionsByteForByte(String capture) throws IOException {
    byte[] pcap = Corpus.bytes(capture, "capture.pcap");
    List<TcpConnection> connections = TcpReassembler.reassemble(new ByteArrayInputStream(pcap));

    assertEquals(2, connections.size());
    for (int i = 0; i < 2; i++) {
      TcpConnection c = connections.get(i);
      String conn = "conn-0" + i;
      assertArrayEquals(
          Corpus.bytes(capture, conn + ".c2s.bin"),
          c.clientToServer().bytes(),
          conn + " client to server");
      assertArrayEquals(
          Corpus.bytes(capture, conn + ".s2c.bin"),
          c.serverToClient().bytes(),
          conn + " server to client");
      assertEquals(List.of(), c.clientToServer().gaps());
      assertEquals(List.of(), c.serverToClient().gaps());
      assertFalse(c.startedMidStream());
      assertEquals(19042, c.server().getPort());
    }
    assertTrue(connections.get(0).startNanos() < connections.get(1).startNanos());
  }

  @ParameterizedTest
  @ValueSource(strings = {"a-v4", "b-v5"})
  void readsEveryPacketOfTheCorpusCaptureAsLoopbackEthernet(String capture) throws IOException {
    byte[] pcap = Corpus.bytes(capture, "capture.pcap");
    int packets = 0;
    long last = 0;
    try (PcapReader reader = new PcapReader(new ByteArrayInputStream(pcap))) {
      for (PcapPacket p; (p = reader.next()) != null; packets++) {
        assertEquals(LinkType.ETHERNET, p.linkType());
        assertTrue(p.timestampNanos() >= last, "timestamps ascend");
        last = p.timestampNanos();
      }
    }
    assertTrue(packets > 20, "packets: " + packets);
  }
}
