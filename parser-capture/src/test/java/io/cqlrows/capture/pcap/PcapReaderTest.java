package io.cqlrows.capture.pcap;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.cqlrows.capture.pcap.PcapFormatException.Reason;
import io.cqlrows.testing.Corpus;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PcapReaderTest {
  /** 2023-11-14T22:13:20.123456789Z. */
  private static final long T = 1_700_000_000_123_456_789L;

  private static final InetSocketAddress CLIENT2 = LinkLayers.address("10.0.0.3", 40000);

  private static List<PcapPacket> readAll(byte[] file) throws IOException {
    List<PcapPacket> out = new ArrayList<>();
    try (PcapReader reader = new PcapReader(new ByteArrayInputStream(file))) {
      for (PcapPacket p; (p = reader.next()) != null; ) {
        out.add(p);
      }
    }
    return out;
  }

  private static PcapFormatException failure(byte[] file) {
    return assertThrows(PcapFormatException.class, () -> readAll(file));
  }

  private static List<PcapPacket> twoPackets(int linkType) {
    return List.of(
        PcapFiles.packet(T, linkType, "first".getBytes(US_ASCII)),
        PcapFiles.packet(T + 1_000, linkType, "second packet".getBytes(US_ASCII)));
  }

  @ParameterizedTest
  @ValueSource(strings = {"LITTLE_ENDIAN", "BIG_ENDIAN"})
  void readsMicrosecondPcapInEitherByteOrder(String order) throws IOException {
    ByteOrder o = order.equals("BIG_ENDIAN") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
    List<PcapPacket> packets = readAll(PcapFiles.classic(o, false, 113, twoPackets(113)));

    assertEquals(2, packets.size());
    assertEquals(T - 789, packets.get(0).timestampNanos(), "microseconds");
    assertEquals(113, packets.get(0).linkType());
    assertArrayEquals("second packet".getBytes(US_ASCII), packets.get(1).data());
    assertEquals(13, packets.get(1).originalLength());
    assertEquals(24, packets.get(0).fileOffset());
    assertEquals(24 + 16 + 5, packets.get(1).fileOffset());
  }

  @ParameterizedTest
  @ValueSource(strings = {"LITTLE_ENDIAN", "BIG_ENDIAN"})
  void readsNanosecondPcap(String order) throws IOException {
    ByteOrder o = order.equals("BIG_ENDIAN") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
    List<PcapPacket> packets = readAll(PcapFiles.classic(o, true, 1, twoPackets(1)));

    assertEquals(T, packets.get(0).timestampNanos());
    assertEquals(T + 1_000, packets.get(1).timestampNanos());
  }

  @Test
  void readsAPcapFileFromDisk(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("x.pcap");
    Files.write(file, PcapFiles.classic(1, twoPackets(1)));
    try (PcapReader reader = PcapReader.open(file)) {
      assertEquals(5, reader.next().data().length);
      assertEquals(13, reader.next().data().length);
      assertNull(reader.next());
      assertNull(reader.next());
    }
  }

  @Test
  void readsPcapngInterfacesOfDifferentLinkTypesAndResolutions() throws IOException {
    byte[] eth = LinkLayers.ethernet(new byte[20]);
    byte[] sll = LinkLayers.sll(new byte[20]);
    byte[] file =
        new PcapFiles.Pcapng(ByteOrder.LITTLE_ENDIAN)
            .iface(LinkType.ETHERNET, 262144, -1, 0) // microseconds by default
            .iface(LinkType.LINUX_SLL, 0, 9, 0) // nanoseconds
            .iface(LinkType.RAW, 0, 0x80 | 20, 100) // 2^-20 s, 100 s later
            .enhanced(0, 1_700_000_000_123_456L, eth)
            .enhanced(1, T, sll)
            .enhanced(2, (5L << 20) | (1 << 19), new byte[] {0x45})
            .toBytes();
    List<PcapPacket> packets = readAll(file);

    assertEquals(3, packets.size());
    assertEquals(
        List.of(LinkType.ETHERNET, LinkType.LINUX_SLL, LinkType.RAW),
        packets.stream().map(PcapPacket::linkType).toList());
    assertEquals(List.of(0, 1, 2), packets.stream().map(PcapPacket::interfaceId).toList());
    assertEquals(T - 789, packets.get(0).timestampNanos());
    assertEquals(T, packets.get(1).timestampNanos());
    assertEquals(105_500_000_000L, packets.get(2).timestampNanos(), "5.5 s + 100 s offset");
    assertArrayEquals(sll, packets.get(1).data());
  }

  @Test
  void reassemblesConnectionsCapturedOnTwoPcapngInterfaces() throws IOException {
    Conversation onEthernet = new Conversation().handshake().client(0, "eth").server(0, "ETH");
    Conversation onSll =
        new Conversation(CLIENT2, Conversation.SERVER, 7, 8, new ArrayList<>())
            .link(LinkType.LINUX_SLL, LinkLayers::sll)
            .at(Conversation.T0 + 500)
            .handshake()
            .client(0, "sll")
            .server(0, "SLL");
    PcapFiles.Pcapng file =
        new PcapFiles.Pcapng(ByteOrder.BIG_ENDIAN)
            .iface(LinkType.ETHERNET, 0, 9, 0)
            .iface(LinkType.LINUX_SLL, 0, 6, 0);
    for (int i = 0; i < 5; i++) {
      PcapPacket e = onEthernet.packets().get(i);
      PcapPacket s = onSll.packets().get(i);
      file.enhanced(0, e.timestampNanos(), e.data())
          .enhanced(1, s.timestampNanos() / 1000, s.data());
    }
    List<TcpConnection> all = TcpReassembler.reassemble(new ByteArrayInputStream(file.toBytes()));

    assertEquals(2, all.size());
    assertEquals("eth", new String(all.get(0).clientToServer().bytes(), US_ASCII));
    assertEquals("SLL", new String(all.get(1).serverToClient().bytes(), US_ASCII));
    assertEquals(CLIENT2, all.get(1).client());
  }

  @Test
  void readsSimplePacketsSkipsOtherBlocksAndStartsOverAtANewSection() throws IOException {
    byte[] file =
        new PcapFiles.Pcapng(ByteOrder.BIG_ENDIAN)
            .iface(LinkType.RAW, 4, -1, 0)
            .block(4, new byte[] {0, 0, 0, 0}) // name resolution
            .simple("abcdef".getBytes(US_ASCII), 6) // cut to the snap length, 4
            .block(5, new byte[20]) // interface statistics
            .block(0x40000BAD, new byte[] {1, 2, 3}) // custom
            .section(ByteOrder.LITTLE_ENDIAN)
            .iface(LinkType.ETHERNET, 0, -1, 0)
            .simple("xyz".getBytes(US_ASCII), 3)
            .toBytes();
    List<PcapPacket> packets = readAll(file);

    assertEquals(2, packets.size());
    assertArrayEquals("abcd".getBytes(US_ASCII), packets.get(0).data());
    assertEquals(6, packets.get(0).originalLength());
    assertEquals(LinkType.RAW, packets.get(0).linkType());
    assertArrayEquals("xyz".getBytes(US_ASCII), packets.get(1).data());
    assertEquals(LinkType.ETHERNET, packets.get(1).linkType());
  }

  @Test
  void reportsATruncatedLastPacketAfterReturningTheOthers() throws IOException {
    byte[] whole = PcapFiles.classic(1, twoPackets(1));
    byte[] cut = Arrays.copyOf(whole, whole.length - 3);
    List<PcapPacket> got = new ArrayList<>();
    PcapReader reader = new PcapReader(new ByteArrayInputStream(cut));
    PcapFormatException e =
        assertThrows(
            PcapFormatException.class,
            () -> {
              for (PcapPacket p; (p = reader.next()) != null; ) {
                got.add(p);
              }
            });

    assertEquals(1, got.size());
    assertEquals(Reason.TRUNCATED, e.reason());
    assertEquals(24 + 16 + 5, e.offset(), "the last record");
    assertSame(e, assertThrows(PcapFormatException.class, reader::next), "sticky");
    reader.close();
  }

  @Test
  void reportsATruncatedPcapngBlockAfterReturningTheOthers() throws IOException {
    byte[] whole =
        new PcapFiles.Pcapng(ByteOrder.LITTLE_ENDIAN)
            .iface(1, 0, -1, 0)
            .enhanced(0, 1, new byte[10])
            .enhanced(0, 2, new byte[10])
            .toBytes();
    for (int cut : new int[] {1, 4, 9, 30, 43}) {
      byte[] file = Arrays.copyOf(whole, whole.length - cut);
      PcapReader reader = new PcapReader(new ByteArrayInputStream(file));
      assertEquals(10, reader.next().data().length);
      PcapFormatException e = assertThrows(PcapFormatException.class, reader::next);
      assertEquals(Reason.TRUNCATED, e.reason(), e.getMessage());
      assertEquals(whole.length - 44, e.offset(), "the second enhanced packet block");
    }
  }

  @Test
  void reportsAFileCutInsideItsHeader() {
    byte[] whole = PcapFiles.classic(1, List.of());
    for (int n : new int[] {0, 3, 4, 23}) {
      PcapFormatException e = failure(Arrays.copyOf(whole, n));
      assertEquals(Reason.TRUNCATED, e.reason());
      assertEquals(0, e.offset());
    }
    assertEquals(List.of(), assertDoesNotThrow(() -> readAll(whole)));
  }

  @Test
  void rejectsAnUnknownMagic() {
    PcapFormatException e = failure("GIF89a and more bytes here".getBytes(US_ASCII));
    assertEquals(Reason.BAD_MAGIC, e.reason());
    assertEquals(0, e.offset());
  }

  @Test
  void rejectsABadPcapngByteOrderMagic() {
    byte[] file = new PcapFiles.Pcapng(ByteOrder.BIG_ENDIAN).toBytes();
    file[9] = 0;
    PcapFormatException e = failure(file);
    assertEquals(Reason.BAD_MAGIC, e.reason());
    assertEquals(8, e.offset());
  }

  @Test
  void rejectsUnknownVersions() {
    byte[] pcap = PcapFiles.classic(1, List.of());
    pcap[4] = 3;
    assertEquals(Reason.UNSUPPORTED_VERSION, failure(pcap).reason());
    byte[] pcapng = new PcapFiles.Pcapng(ByteOrder.LITTLE_ENDIAN).toBytes();
    pcapng[12] = 2;
    assertEquals(Reason.UNSUPPORTED_VERSION, failure(pcapng).reason());
  }

  @Test
  void rejectsAPacketLongerThanTheLimitBeforeAllocatingIt() {
    byte[] file = PcapFiles.classic(1, twoPackets(1));
    ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).putInt(24 + 8, 0xFFFF_FFF0);
    PcapFormatException e = failure(file);
    assertEquals(Reason.BAD_LENGTH, e.reason());
    assertEquals(24, e.offset());
  }

  @Test
  void rejectsBlockLengthsThatLie() {
    byte[] base =
        new PcapFiles.Pcapng(ByteOrder.LITTLE_ENDIAN)
            .iface(1, 0, -1, 0)
            .enhanced(0, 1, new byte[8])
            .toBytes();
    int epb = base.length - 40;
    // unaligned, too small for the block type, trailing length disagreeing, data past the end
    int[][] lies = {{epb + 4, 41}, {epb + 4, 28}, {base.length - 4, 44}, {epb + 20, 9}};
    for (int[] lie : lies) {
      byte[] file = base.clone();
      ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).putInt(lie[0], lie[1]);
      PcapFormatException e = failure(file);
      assertEquals(Reason.BAD_LENGTH, e.reason(), e.getMessage());
      assertEquals(epb, e.offset(), e.getMessage());
    }
  }

  @Test
  void rejectsAPacketOfAnUndescribedInterfaceAndABadResolution() {
    byte[] noInterface =
        new PcapFiles.Pcapng(ByteOrder.LITTLE_ENDIAN)
            .iface(1, 0, -1, 0)
            .enhanced(1, 1, new byte[4])
            .toBytes();
    assertEquals(Reason.BAD_FIELD, failure(noInterface).reason());
    byte[] badResolution =
        new PcapFiles.Pcapng(ByteOrder.LITTLE_ENDIAN).iface(1, 0, 19, 0).toBytes();
    assertEquals(Reason.BAD_FIELD, failure(badResolution).reason());
  }

  @Test
  void namesTheStructureTheOffsetAndTheLengths() {
    byte[] file = Arrays.copyOf(PcapFiles.classic(1, twoPackets(1)), 24 + 21 + 19);
    PcapFormatException e = failure(file);
    assertEquals(Reason.TRUNCATED, e.reason());
    assertEquals(45, e.offset());
    assertEquals(29, e.length());
  }

  @Test
  void readsTheCorpusCaptureFromAnyStreamChunking() throws IOException {
    byte[] pcap = Corpus.bytes("a-v4", "capture.pcap");
    int expected = readAll(pcap).size();
    int count = 0;
    // a stream that hands out 1 to 7 bytes per read() call
    try (PcapReader reader =
        new PcapReader(
            new ByteArrayInputStream(pcap) {
              @Override
              public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, 1 + (pos % 7)));
              }
            })) {
      while (reader.next() != null) {
        count++;
      }
    }
    assertEquals(expected, count);
  }
}
