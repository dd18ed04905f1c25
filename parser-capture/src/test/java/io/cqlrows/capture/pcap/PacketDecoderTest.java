package io.cqlrows.capture.pcap;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PacketDecoderTest {
  private static final InetSocketAddress CLIENT6 = LinkLayers.address("fd00::1", 50123);
  private static final InetSocketAddress SERVER6 = LinkLayers.address("fd00::2", 9042);

  /** A short conversation over the given link layer, reassembled. */
  private static TcpConnection converse(
      InetSocketAddress client,
      InetSocketAddress server,
      int linkType,
      UnaryOperator<byte[]> link) {
    return new Conversation(client, server, 1000, 5000, new ArrayList<>())
        .link(linkType, link)
        .handshake()
        .client(0, "OPTIONS")
        .server(0, "SUPPORTED")
        .client(7, "!")
        .only();
  }

  private static void assertConversation(TcpConnection c, InetSocketAddress client) {
    assertEquals("OPTIONS!", new String(c.clientToServer().bytes(), US_ASCII));
    assertEquals("SUPPORTED", new String(c.serverToClient().bytes(), US_ASCII));
    assertEquals(client, c.client());
    assertTrue(!c.hasGaps() && !c.startedMidStream());
  }

  @Test
  void decodesIpv6OverEthernet() {
    assertConversation(
        converse(CLIENT6, SERVER6, LinkType.ETHERNET, LinkLayers::ethernet), CLIENT6);
  }

  @Test
  void skipsIpv6ExtensionHeaders() {
    UnaryOperator<byte[]> link = ip -> LinkLayers.ethernet(withExtensions(ip, 0, 60, 43, 51, 44));
    assertConversation(converse(CLIENT6, SERVER6, LinkType.ETHERNET, link), CLIENT6);
  }

  @Test
  void skipsIpv6FragmentsAfterTheFirst() {
    Set<String> warnings = new LinkedHashSet<>();
    byte[] ip = withExtensions(LinkLayers.ipTcp(CLIENT6, SERVER6, 1, 2, 0x18, new byte[8]), 44);
    ip[40 + 2] = 0x05;
    ip[40 + 3] = (byte) 0xC8; // offset 185 (1480 bytes), M = 0
    assertNull(new PacketDecoder(warnings).decode(PcapFiles.packet(0, LinkType.RAW, ip)));
    assertTrue(warnings.iterator().next().startsWith("IPv6 fragments"), warnings.toString());
  }

  @ParameterizedTest
  @ValueSource(ints = {0x8100, 0x88A8})
  void decodesVlanTaggedEthernet(int outerTag) {
    UnaryOperator<byte[]> link = ip -> LinkLayers.vlan(ip, outerTag, 0x8100);
    assertConversation(
        converse(Conversation.CLIENT, Conversation.SERVER, LinkType.ETHERNET, link),
        Conversation.CLIENT);
    assertConversation(
        converse(CLIENT6, SERVER6, LinkType.ETHERNET, ip -> LinkLayers.vlan(ip, 0x8100)), CLIENT6);
  }

  @Test
  void decodesLinuxCookedCaptures() {
    assertConversation(
        converse(Conversation.CLIENT, Conversation.SERVER, LinkType.LINUX_SLL, LinkLayers::sll),
        Conversation.CLIENT);
    assertConversation(converse(CLIENT6, SERVER6, LinkType.LINUX_SLL2, LinkLayers::sll2), CLIENT6);
  }

  @Test
  void decodesNullLoopbackInEitherByteOrder() {
    for (ByteOrder order : List.of(ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN)) {
      assertConversation(
          converse(
              Conversation.CLIENT,
              Conversation.SERVER,
              LinkType.NULL,
              ip -> LinkLayers.nullLoopback(ip, order, 2)),
          Conversation.CLIENT);
      for (int inet6 : new int[] {10, 24, 28, 30}) {
        assertConversation(
            converse(
                CLIENT6, SERVER6, LinkType.NULL, ip -> LinkLayers.nullLoopback(ip, order, inet6)),
            CLIENT6);
      }
    }
    assertConversation(
        converse(
            Conversation.CLIENT,
            Conversation.SERVER,
            LinkType.LOOP,
            ip -> LinkLayers.nullLoopback(ip, ByteOrder.BIG_ENDIAN, 2)),
        Conversation.CLIENT);
  }

  @Test
  void decodesRawIp() {
    assertConversation(
        converse(Conversation.CLIENT, Conversation.SERVER, LinkType.RAW, ip -> ip),
        Conversation.CLIENT);
    assertConversation(converse(CLIENT6, SERVER6, LinkType.RAW, ip -> ip), CLIENT6);
    assertConversation(
        converse(Conversation.CLIENT, Conversation.SERVER, LinkType.IPV4, ip -> ip),
        Conversation.CLIENT);
    assertConversation(converse(CLIENT6, SERVER6, LinkType.IPV6, ip -> ip), CLIENT6);
  }

  @Test
  void ignoresEthernetPaddingAfterTheIpTotalLength() {
    UnaryOperator<byte[]> padded =
        ip -> {
          byte[] frame = LinkLayers.ethernet(ip);
          byte[] out = Arrays.copyOf(frame, Math.max(60, frame.length) + 4); // and a stray FCS
          Arrays.fill(out, frame.length, out.length, (byte) 'P');
          return out;
        };
    assertConversation(
        converse(Conversation.CLIENT, Conversation.SERVER, LinkType.ETHERNET, padded),
        Conversation.CLIENT);
  }

  @Test
  void takesTheCapturedLengthWhenTheIpv4TotalLengthIsZero() {
    UnaryOperator<byte[]> tso =
        ip -> {
          ip[2] = 0;
          ip[3] = 0; // as Linux captures TSO super-packets before segmentation
          return LinkLayers.ethernet(ip);
        };
    assertConversation(
        converse(Conversation.CLIENT, Conversation.SERVER, LinkType.ETHERNET, tso),
        Conversation.CLIENT);
  }

  @Test
  void skipsIpv4FragmentsAfterTheFirstAndSaysSoOnce() {
    Conversation conv = new Conversation().handshake().client(0, "abc");
    for (int i = 0; i < 2; i++) {
      conv.client(3, "XYZ");
      byte[] frame = conv.packets().get(conv.packets().size() - 1).data();
      frame[14 + 6] = 0;
      frame[14 + 7] = (byte) 185; // fragment offset 1480, no more fragments
    }
    conv.client(3, "def");
    TcpReassembler r = new TcpReassembler();
    TcpConnection c = conv.reassemble(r).get(0);

    assertEquals("abcdef", new String(c.clientToServer().bytes(), US_ASCII));
    assertEquals(1, r.warnings().size(), r.warnings().toString());
    assertTrue(r.warnings().get(0).startsWith("IPv4 fragments"), r.warnings().get(0));
  }

  @Test
  void decodesTheFirstFragmentAndLeavesItsMissingTailToTheGapRules() {
    Conversation conv = new Conversation().handshake().client(0, "abc");
    byte[] frame = conv.packets().get(conv.packets().size() - 1).data();
    frame[14 + 6] = 0x20; // more fragments, offset 0
    TcpConnection c = conv.client(3, "def").only();

    assertEquals("abcdef", new String(c.clientToServer().bytes(), US_ASCII));
  }

  @Test
  void ignoresEveryCutOrMalformedHeaderWithoutThrowing() {
    Set<String> warnings = new LinkedHashSet<>();
    PacketDecoder decoder = new PacketDecoder(warnings);
    byte[] ip4 =
        LinkLayers.ipTcp(
            Conversation.CLIENT, Conversation.SERVER, 1, 2, 0x18, "payload".getBytes(US_ASCII));
    byte[] ip6 = withExtensions(LinkLayers.ipTcp(CLIENT6, SERVER6, 1, 2, 0x18, new byte[3]), 0);
    int[] linkTypes = {
      LinkType.ETHERNET, LinkType.LINUX_SLL, LinkType.LINUX_SLL2, LinkType.NULL, LinkType.RAW
    };
    for (byte[] ip : List.of(ip4, ip6)) {
      List<byte[]> frames =
          List.of(
              LinkLayers.vlan(ip, 0x8100),
              LinkLayers.sll(ip),
              LinkLayers.sll2(ip),
              LinkLayers.nullLoopback(ip, ByteOrder.LITTLE_ENDIAN, 2),
              ip);
      for (int i = 0; i < frames.size(); i++) {
        byte[] frame = frames.get(i);
        for (int cut = 0; cut < frame.length; cut++) {
          TcpSegment s =
              decoder.decode(PcapFiles.packet(0, linkTypes[i], Arrays.copyOf(frame, cut)));
          assertTrue(s == null || s.payloadLength() + s.missingLength() <= 7);
        }
      }
    }
    Random random = new Random(42);
    for (int i = 0; i < 2000; i++) {
      byte[] frame = LinkLayers.ethernet(i % 2 == 0 ? ip4 : ip6);
      frame[14 + random.nextInt(frame.length - 14)] = (byte) random.nextInt();
      frame[14 + random.nextInt(Math.min(60, frame.length - 14))] = (byte) random.nextInt();
      decoder.decode(PcapFiles.packet(0, LinkType.ETHERNET, frame));
    }
    assertTrue(warnings.stream().anyMatch(w -> w.contains("cut inside")), warnings.toString());
  }

  @Test
  void rejectsAHeaderLengthBelowTheMinimum() {
    Set<String> warnings = new LinkedHashSet<>();
    byte[] ip = LinkLayers.ipTcp(Conversation.CLIENT, Conversation.SERVER, 1, 2, 0x18, new byte[8]);
    ip[0] = 0x44; // IHL 4
    assertNull(new PacketDecoder(warnings).decode(PcapFiles.packet(0, LinkType.RAW, ip)));
    ip[0] = 0x45;
    ip[20 + 12] = 0x40; // TCP data offset 4
    assertNull(new PacketDecoder(warnings).decode(PcapFiles.packet(0, LinkType.RAW, ip)));
    assertEquals(2, warnings.size(), warnings.toString());
  }

  /**
   * Inserts 8-byte IPv6 extension headers of the given types (0, 43, 60, 51, 44) after the fixed
   * header.
   */
  private static byte[] withExtensions(byte[] ip6, int... types) {
    int n = 8 * types.length;
    byte[] out = new byte[ip6.length + n];
    System.arraycopy(ip6, 0, out, 0, 40);
    System.arraycopy(ip6, 40, out, 40 + n, ip6.length - 40);
    int payload = ((ip6[4] & 0xFF) << 8 | (ip6[5] & 0xFF)) + n;
    out[4] = (byte) (payload >> 8);
    out[5] = (byte) payload;
    out[6] = (byte) types[0];
    for (int i = 0; i < types.length; i++) {
      out[40 + 8 * i] = (byte) (i + 1 < types.length ? types[i + 1] : 6);
      out[40 + 8 * i + 1] = 0; // 8 bytes long, in each header's own units
    }
    return out;
  }
}
