package io.cqlrows.capture.pcap;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.capture.pcap.TcpStream.Chunk;
import io.cqlrows.capture.pcap.TcpStream.Gap;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class TcpReassemblerTest {

  private static String text(TcpStream s) {
    return new String(s.bytes(), US_ASCII);
  }

  @Test
  void reassemblesBothDirectionsOfAClosedConnection() {
    TcpConnection c =
        new Conversation()
            .handshake()
            .client(0, "OPTIONS")
            .server(0, "SUPPORTED")
            .client(7, "STARTUP")
            .clientFin(14)
            .serverFin(9)
            .only();

    assertEquals("OPTIONSSTARTUP", text(c.clientToServer()));
    assertEquals("SUPPORTED", text(c.serverToClient()));
    assertEquals(Conversation.CLIENT, c.client());
    assertEquals(Conversation.SERVER, c.server());
    assertEquals(Conversation.T0, c.startNanos());
    assertFalse(c.startedMidStream());
    assertTrue(c.closed());
    assertFalse(c.hasGaps());
    assertTrue(c.clientToServer().finished());
  }

  @Test
  void timestampsEachRunOfBytesWithItsPacket() {
    TcpStream s =
        new Conversation().handshake().client(0, "abc").client(3, "defg").only().clientToServer();

    long third = Conversation.T0 + 3_000_000; // after SYN, SYN-ACK, ACK
    assertEquals(List.of(new Chunk(0, 3, third), new Chunk(3, 4, third + 1_000_000)), s.chunks());
    assertEquals(third, s.timestampNanosAt(2));
    assertEquals(third + 1_000_000, s.timestampNanosAt(3));
    assertThrows(IndexOutOfBoundsException.class, () -> s.timestampNanosAt(7));
  }

  @Test
  void dropsRetransmittedSegments() {
    TcpConnection c =
        new Conversation()
            .handshake()
            .client(0, "hello")
            .client(0, "hello")
            .client(5, " world")
            .client(5, " world")
            .client(0, "hello")
            .only();

    assertEquals("hello world", text(c.clientToServer()));
    assertEquals(List.of(), c.clientToServer().gaps());
  }

  @Test
  void keepsTheBytesReceivedFirstWhereASegmentPartiallyOverlaps() {
    TcpConnection c = new Conversation().handshake().client(0, "abcdef").client(3, "XYZghi").only();

    assertEquals("abcdefghi", text(c.clientToServer()), "the overlap 'def' is kept, not 'XYZ'");
  }

  @Test
  void keepsTheBytesReceivedFirstWhenARetransmissionCoversSeveralSegments() {
    TcpConnection c =
        new Conversation()
            .handshake()
            .client(0, "abc")
            .client(3, "def")
            .client(0, "XXXXXXghi")
            .only();

    assertEquals("abcdefghi", text(c.clientToServer()));
  }

  @Test
  void keepsTheBufferedBytesWhenOutOfOrderSegmentsOverlap() {
    TcpConnection c =
        new Conversation()
            .handshake()
            .client(4, "efgh")
            .client(2, "XXXXXXij")
            .client(8, "YYkl")
            .client(0, "abZZ")
            .only();

    // first copies win: "ab" arrives last but nobody sent it before; "ZZ" loses to "XX"
    assertEquals("abXXefghijkl", text(c.clientToServer()));
  }

  @Test
  void reordersSegmentsThatArriveOutOfOrder() {
    TcpConnection c =
        new Conversation()
            .handshake()
            .client(10, "klmno")
            .client(5, "fghij")
            .client(0, "abcde")
            .server(3, "def")
            .server(0, "abc")
            .only();

    assertEquals("abcdefghijklmno", text(c.clientToServer()));
    assertEquals("abcdef", text(c.serverToClient()));
    assertFalse(c.hasGaps());
  }

  @Test
  void recordsAGapForAMissingSegmentAndDeliversTheBytesAfterIt() {
    TcpConnection c =
        new Conversation()
            .handshake()
            .client(0, "hello")
            .client(10, "world")
            .client(15, "!")
            .only();

    assertEquals("helloworld!", text(c.clientToServer()));
    assertEquals(List.of(new Gap(5, 5)), c.clientToServer().gaps());
    assertTrue(c.hasGaps());
  }

  @Test
  void waitsForAHoleThatThePeerAcknowledgedBeforeItsSegmentWasCaptured() {
    TcpConnection c =
        new Conversation()
            .handshake()
            .client(0, "hello")
            .client(10, "world")
            .serverAcks(15)
            .client(5, "LATE!")
            .client(15, "!")
            .only();

    // a capture merged from two interfaces: the acknowledgment of bytes 5-14 comes before the
    // segment with bytes 5-9, which is in the file and fills the hole
    assertEquals("helloLATE!world!", text(c.clientToServer()));
    assertEquals(List.of(), c.clientToServer().gaps());
  }

  @Test
  void aHoleThatNeverFillsIsOneGapAtTheEnd() {
    TcpConnection c =
        new Conversation()
            .handshake()
            .client(0, "hello")
            .client(10, "world")
            .serverAcks(15)
            .client(15, "!")
            .only();

    assertEquals("helloworld!", text(c.clientToServer()));
    assertEquals(List.of(new Gap(5, 5)), c.clientToServer().gaps());
  }

  @Test
  void givesUpTheFirstHoleWhenTheOutOfOrderBufferIsFull() {
    Conversation conv =
        new Conversation()
            .handshake()
            .client(0, "abc")
            .client(5, "fgh")
            .client(8, "ijk")
            .client(3, "de");
    TcpConnection c = conv.reassemble(new TcpReassembler(0, 5)).get(0);

    assertEquals("abcfghijk", text(c.clientToServer()));
    assertEquals(List.of(new Gap(3, 2)), c.clientToServer().gaps());
  }

  @Test
  void recordsBytesAcknowledgedButNeverCapturedAtTheEndAsAGap() {
    TcpConnection c =
        new Conversation().handshake().client(0, "abc").serverAcks(10).clientFin(12).only();

    assertEquals("abc", text(c.clientToServer()));
    assertEquals(List.of(new Gap(3, 9)), c.clientToServer().gaps(), "the FIN sits at 12");
  }

  @Test
  void acknowledgingTheFinIsNoGap() {
    TcpConnection c =
        new Conversation()
            .handshake()
            .client(0, "abc")
            .clientFin(3)
            .serverAcks(4)
            .serverFin(0)
            .clientAcks(1)
            .only();

    assertEquals(List.of(), c.clientToServer().gaps());
    assertEquals(List.of(), c.serverToClient().gaps());
    assertTrue(c.closed());
  }

  @Test
  void followsSequenceNumbersAcrossTheWraparound() {
    TcpConnection c =
        new Conversation(0xFFFF_FFF0, 0x7FFF_FFFA)
            .handshake()
            .client(0, "0123456789")
            .client(20, "KLMNOPQRST")
            .client(10, "ABCDEFGHIJ")
            .server(0, "abcdefgh")
            .server(8, "ijklmnop")
            .only();

    assertEquals("0123456789ABCDEFGHIJKLMNOPQRST", text(c.clientToServer()));
    assertEquals("abcdefghijklmnop", text(c.serverToClient()));
    assertFalse(c.hasGaps());
  }

  @Test
  void startsEachStreamAtItsFirstCapturedByteWithoutAHandshake() {
    TcpConnection c =
        new Conversation()
            .server(100, "tail of a response")
            .client(40, "next request")
            .server(118, "!")
            .only();

    assertTrue(c.startedMidStream());
    assertEquals(Conversation.SERVER, c.server(), "9042 is the server though it spoke first");
    assertEquals("tail of a response!", text(c.serverToClient()));
    assertEquals("next request", text(c.clientToServer()));
    assertFalse(c.closed());
  }

  @Test
  void takesTheGivenServerPortOverTheLowerPort() {
    InetSocketAddress low = LinkLayers.address("10.0.0.1", 1000);
    InetSocketAddress high = LinkLayers.address("10.0.0.2", 20000);
    Conversation conv = new Conversation(low, high, 1, 2, new ArrayList<>()).client(0, "a");

    assertEquals(low, conv.reassemble(new TcpReassembler(20000, 1 << 20)).get(0).client());
    assertEquals(
        high,
        new Conversation(low, high, 1, 2, new ArrayList<>())
            .client(0, "a")
            .reassemble()
            .get(0)
            .client(),
        "without a server port, the lower port serves");
  }

  @Test
  void takesTheSenderOfTheFirstPayloadAsClientWhenPortsAreEqual() {
    InetSocketAddress a = LinkLayers.address("10.0.0.1", 7000);
    InetSocketAddress b = LinkLayers.address("10.0.0.2", 7000);
    TcpConnection c =
        new Conversation(a, b, 1, 2, new ArrayList<>())
            .serverAcks(0)
            .client(0, "first words")
            .only();

    assertEquals(a, c.client());
  }

  @Test
  void takesTheSynAckReceiverAsClientWhenTheSynWasNotCaptured() {
    Conversation conv = new Conversation();
    conv.packet(false, 5000, 1001, TcpSegment.SYN | TcpSegment.ACK, new byte[0])
        .client(0, "abc")
        .server(0, "de");
    TcpConnection c = conv.only();

    assertEquals(Conversation.CLIENT, c.client());
    assertEquals("abc", text(c.clientToServer()));
    assertEquals("de", text(c.serverToClient()));
    assertFalse(c.startedMidStream());
  }

  @Test
  void keepsInterleavedConnectionsApartInTheOrderTheyStarted() {
    List<PcapPacket> packets = new ArrayList<>();
    InetSocketAddress client2 = LinkLayers.address("10.0.0.1", 50200);
    Conversation one = new Conversation(Conversation.CLIENT, Conversation.SERVER, 1, 2, packets);
    Conversation two =
        new Conversation(client2, Conversation.SERVER, 3, 4, packets).at(Conversation.T0 - 1000);
    two.handshake();
    one.handshake();
    two.client(0, "two:");
    one.client(0, "one:");
    one.server(0, "ONE");
    two.server(0, "TWO");
    two.client(4, "2");
    one.client(4, "1");
    List<TcpConnection> all = two.reassemble();

    assertEquals(2, all.size());
    assertEquals(client2, all.get(0).client());
    assertEquals("two:2", text(all.get(0).clientToServer()));
    assertEquals("TWO", text(all.get(0).serverToClient()));
    assertEquals("one:1", text(all.get(1).clientToServer()));
    assertEquals("ONE", text(all.get(1).serverToClient()));
  }

  @Test
  void startsANewConnectionWhenASynReusesThePorts() {
    List<PcapPacket> packets = new ArrayList<>();
    new Conversation(Conversation.CLIENT, Conversation.SERVER, 1, 2, packets)
        .handshake()
        .client(0, "first")
        .clientFin(5)
        .serverFin(0);
    Conversation second =
        new Conversation(Conversation.CLIENT, Conversation.SERVER, 90000, 2, packets)
            .at(Conversation.T0 + 1_000_000_000)
            .handshake()
            .client(0, "second");
    List<TcpConnection> all = second.reassemble();

    assertEquals(2, all.size());
    assertEquals("first", text(all.get(0).clientToServer()));
    assertTrue(all.get(0).closed());
    assertEquals("second", text(all.get(1).clientToServer()));
    assertFalse(all.get(1).closed());
  }

  @Test
  void aResetClosesTheConnectionAndItsPayloadIsNoData() {
    Conversation conv = new Conversation().handshake().client(0, "abc");
    conv.packet(false, 5001, 1004, TcpSegment.RST | TcpSegment.ACK, "reason".getBytes(US_ASCII));
    TcpConnection c = conv.only();

    assertTrue(c.closed());
    assertEquals(0, c.serverToClient().length());
  }

  @Test
  void ignoresPacketsThatAreNotTcpAndNotesUnknownLinkTypes() {
    TcpReassembler r = new TcpReassembler();
    byte[] udp = LinkLayers.ipTcp(Conversation.CLIENT, Conversation.SERVER, 1, 1, 0, new byte[4]);
    udp[9] = 17;
    r.add(PcapFiles.packet(1, LinkType.RAW, udp));
    r.add(PcapFiles.packet(2, 147, new byte[40]));
    r.add(PcapFiles.packet(3, 147, new byte[40]));

    assertEquals(List.of(), r.finish());
    assertEquals(
        List.of("packets of link type 147 are not decoded and were ignored"), r.warnings());
  }

  @Test
  void recordsBytesCutByTheSnapshotLengthAsAGap() {
    Conversation conv = new Conversation().handshake().client(0, "0123456789");
    List<PcapPacket> packets = new ArrayList<>(conv.packets());
    PcapPacket last = packets.remove(packets.size() - 1);
    byte[] cut = Arrays.copyOf(last.data(), last.data().length - 4);
    packets.add(
        new PcapPacket(last.timestampNanos(), LinkType.ETHERNET, 0, cut, last.data().length, 0));
    TcpReassembler r = new TcpReassembler();
    packets.forEach(r::add);
    TcpConnection c = r.finish().get(0);

    assertEquals("012345", text(c.clientToServer()));
    assertEquals(List.of(new Gap(6, 4)), c.clientToServer().gaps());
    assertEquals(1, r.warnings().size(), r.warnings().toString());
  }

  @Test
  void refusesPacketsAfterFinish() {
    TcpReassembler r = new TcpReassembler();
    r.finish();
    assertThrows(IllegalStateException.class, () -> r.add(PcapFiles.packet(0, 1, new byte[0])));
    assertThrows(IllegalStateException.class, r::finish);
  }
}
