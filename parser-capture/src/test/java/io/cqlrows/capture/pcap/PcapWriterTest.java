package io.cqlrows.capture.pcap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.capture.pcap.TcpStream.Gap;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PcapWriterTest {
  private static final Instant NOW = Instant.parse("2025-01-02T03:04:05.678901Z");
  private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
  private static final InetSocketAddress CLIENT = LinkLayers.address("192.168.1.10", 51000);
  private static final InetSocketAddress SERVER = LinkLayers.address("192.168.1.20", 9042);

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  private PcapWriter.Builder builder() {
    return PcapWriter.builder(out).client(CLIENT).server(SERVER).clock(CLOCK);
  }

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private List<PcapPacket> packets() throws IOException {
    List<PcapPacket> list = new ArrayList<>();
    try (PcapReader r = new PcapReader(new ByteArrayInputStream(out.toByteArray()))) {
      for (PcapPacket p; (p = r.next()) != null; ) {
        list.add(p);
      }
    }
    return list;
  }

  private List<TcpSegment> segments() throws IOException {
    PacketDecoder decoder = new PacketDecoder(new LinkedHashSet<>());
    return packets().stream().map(decoder::decode).toList();
  }

  private TcpConnection reassembled() throws IOException {
    List<TcpConnection> all =
        TcpReassembler.reassemble(new ByteArrayInputStream(out.toByteArray()));
    assertEquals(1, all.size());
    return all.get(0);
  }

  @Test
  void writesAConnectionThatReassemblesToTheSameBytes() throws IOException {
    byte[] request = random(70_000, 1);
    byte[] response = random(200_000, 2);
    try (PcapWriter w = builder().build()) {
      w.writeClientToServer(request, 0, request.length);
      w.writeServerToClient(response, 0, response.length);
      w.writeClientToServer(request, 5, 10);
    }
    TcpConnection c = reassembled();

    byte[] requests = new byte[70_010];
    System.arraycopy(request, 0, requests, 0, 70_000);
    System.arraycopy(request, 5, requests, 70_000, 10);
    assertArrayEquals(requests, c.clientToServer().bytes());
    assertArrayEquals(response, c.serverToClient().bytes());
    assertEquals(CLIENT, c.client());
    assertEquals(SERVER, c.server());
    assertEquals(NOW.getEpochSecond() * 1_000_000_000L + 678_901_000L, c.startNanos());
    assertTrue(c.closed());
    assertFalse(c.hasGaps() || c.startedMidStream());
  }

  @Test
  void opensWithAHandshakeAndEndsWithAFinExchange() throws IOException {
    try (PcapWriter w = builder().initialSequenceNumbers(100, 900).build()) {
      w.writeClientToServer(new byte[3], 0, 3);
      w.writeServerToClient(new byte[2], 0, 2);
    }
    List<TcpSegment> s = segments();

    int ack = TcpSegment.ACK;
    int fin = TcpSegment.FIN | ack;
    int psh = TcpSegment.PSH | ack;
    assertEquals(
        List.of(TcpSegment.SYN, TcpSegment.SYN | ack, ack, psh, psh, fin, fin, ack),
        s.stream().map(TcpSegment::flags).toList());
    assertEquals(
        List.of(100, 900, 101, 101, 901, 104, 903, 105), s.stream().map(TcpSegment::seq).toList());
    assertEquals(
        List.of(0, 101, 901, 901, 104, 903, 105, 904), s.stream().map(TcpSegment::ack).toList());
    assertEquals(CLIENT, s.get(0).source());
    assertEquals(SERVER, s.get(1).source());
  }

  @Test
  void splitsWritesIntoSegmentsOfAtMostTheMaximumSize() throws IOException {
    try (PcapWriter w = builder().maxSegmentSize(1000).build()) {
      w.writeClientToServer(new byte[2500], 0, 2500);
    }
    List<TcpSegment> data = segments().stream().filter(s -> s.payloadLength() > 0).toList();

    assertEquals(List.of(1000, 1000, 500), data.stream().map(TcpSegment::payloadLength).toList());
    assertEquals(
        List.of(false, false, true), data.stream().map(s -> s.has(TcpSegment.PSH)).toList());
    assertEquals(data.get(0).seq() + 1000, data.get(1).seq());
  }

  @Test
  void fillsIpv4PacketsUpToTheirLimitByDefault() throws IOException {
    try (PcapWriter w = builder().build()) {
      w.writeServerToClient(new byte[150_000], 0, 150_000);
    }
    List<PcapPacket> packets = packets();
    int largest = packets.stream().mapToInt(p -> p.data().length).max().orElseThrow();

    assertEquals(14 + 65535, largest);
    assertEquals(65495, PcapWriter.MAX_SEGMENT_SIZE);
  }

  @Test
  void writesCorrectIpv4AndTcpChecksums() throws IOException {
    try (PcapWriter w = builder().build()) {
      w.writeClientToServer(new byte[] {1, 2, 3}, 0, 3); // odd length
      w.writeServerToClient(random(4000, 3), 0, 4000);
    }
    for (PcapPacket p : packets()) {
      byte[] d = p.data();
      assertEquals(0, PacketEncoder.finish(PacketEncoder.sum(d, 14, 20, 0)), "IPv4 header");
      int tcpLength = d.length - 34;
      long pseudo = PacketEncoder.sum(d, 26, 8, 0) + 6 + tcpLength; // addresses, protocol, length
      assertEquals(0, PacketEncoder.finish(PacketEncoder.sum(d, 34, tcpLength, pseudo)), "TCP");
    }
  }

  @Test
  void writesIpv6WhenTheAddressesAreIpv6() throws IOException {
    InetSocketAddress c6 = LinkLayers.address("::1", 40000);
    InetSocketAddress s6 = LinkLayers.address("::1", 9042);
    try (PcapWriter w = PcapWriter.builder(out).client(c6).server(s6).clock(CLOCK).build()) {
      w.writeClientToServer(new byte[] {7, 8}, 0, 2);
    }
    byte[] syn = packets().get(0).data();
    TcpConnection c = reassembled();

    assertEquals(0x86, syn[12] & 0xFF);
    assertEquals(6, syn[14 + 6], "next header TCP");
    int tcpLength = syn.length - 54;
    long pseudo = PacketEncoder.sum(syn, 22, 32, 0) + 6 + tcpLength;
    assertEquals(0, PacketEncoder.finish(PacketEncoder.sum(syn, 54, tcpLength, pseudo)));
    assertEquals(c6, c.client());
    assertArrayEquals(new byte[] {7, 8}, c.clientToServer().bytes());
  }

  @Test
  void wrapsSequenceNumbersPastZero() throws IOException {
    byte[] data = random(100_000, 4);
    try (PcapWriter w = builder().initialSequenceNumbers(-50_000, -3).build()) {
      w.writeClientToServer(data, 0, data.length);
      w.writeServerToClient(data, 0, data.length);
    }
    TcpConnection c = reassembled();

    assertArrayEquals(data, c.clientToServer().bytes());
    assertArrayEquals(data, c.serverToClient().bytes());
  }

  @Test
  void timestampsEachPacketWithTheClock() throws IOException {
    Clock ticking =
        new Clock() {
          private long micros;

          @Override
          public Instant instant() {
            return NOW.plusNanos(1000 * micros++);
          }

          @Override
          public ZoneId getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(ZoneId zone) {
            return this;
          }
        };
    try (PcapWriter w = builder().clock(ticking).build()) {
      w.writeHandshake();
    }
    List<PcapPacket> packets = packets();
    long start = NOW.getEpochSecond() * 1_000_000_000L + NOW.getNano();

    for (int i = 0; i < packets.size(); i++) {
      assertEquals(start + 1000L * i, packets.get(i).timestampNanos());
    }
  }

  @Test
  void leavesAGapForSkippedBytes() throws IOException {
    try (PcapWriter w = builder().build()) {
      w.writeClientToServer(new byte[] {1, 2}, 0, 2);
      w.skip(true, 1000);
      w.writeClientToServer(new byte[] {3}, 0, 1);
    }
    TcpConnection c = reassembled();

    assertArrayEquals(new byte[] {1, 2, 3}, c.clientToServer().bytes());
    assertEquals(List.of(new Gap(2, 1000)), c.clientToServer().gaps());
  }

  @Test
  void defaultsToALoopbackClientOnAHighPortAndTheCqlPort() throws IOException {
    try (PcapWriter w = PcapWriter.builder(out).build()) {
      assertTrue(w.client().getAddress().isLoopbackAddress());
      assertTrue(w.client().getPort() >= 49152, w.client().toString());
      assertEquals(9042, w.server().getPort());
    }
    assertEquals(List.of(), packets(), "nothing written: no handshake");
    assertEquals(24, out.size());
  }

  @Test
  void rejectsMixedIpVersionsUnresolvedAddressesAndBadSegmentSizes() {
    InetSocketAddress v6 = LinkLayers.address("::1", 9042);
    assertThrows(IllegalArgumentException.class, () -> builder().server(v6).build());
    assertThrows(
        IllegalArgumentException.class,
        () -> builder().server(InetSocketAddress.createUnresolved("cassandra", 9042)));
    assertThrows(IllegalArgumentException.class, () -> builder().maxSegmentSize(0));
    assertThrows(IllegalArgumentException.class, () -> builder().maxSegmentSize(65496));
  }

  @Test
  void refusesDataAfterClose() throws IOException {
    PcapWriter w = builder().build();
    w.close();
    w.close();
    assertThrows(IllegalStateException.class, () -> w.writeClientToServer(new byte[1], 0, 1));
  }
}
