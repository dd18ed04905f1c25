package io.cqlrows.capture.pcap;

/**
 * Link-layer header type numbers ({@code LINKTYPE_*} in the tcpdump.org registry) that {@link
 * TcpReassembler} decodes. Packets of any other link type are read by {@link PcapReader} but
 * ignored by the reassembler.
 *
 * <p>An open set, so plain {@code int} constants rather than an enum. Stateless.
 */
public final class LinkType {
  /** BSD loopback: a 4-byte address family in the byte order of the capturing host. */
  public static final int NULL = 0;

  /** Ethernet II, with optional 802.1Q / 802.1ad VLAN tags. */
  public static final int ETHERNET = 1;

  /** Raw IPv4 or IPv6, told apart by the version nibble. */
  public static final int RAW = 101;

  /** OpenBSD loopback: a 4-byte address family in network byte order. */
  public static final int LOOP = 108;

  /** Linux "cooked" capture, version 1 (16-byte header; {@code tcpdump -i any}). */
  public static final int LINUX_SLL = 113;

  /** Raw IPv4. */
  public static final int IPV4 = 228;

  /** Raw IPv6. */
  public static final int IPV6 = 229;

  /** Linux "cooked" capture, version 2 (20-byte header). */
  public static final int LINUX_SLL2 = 276;

  private LinkType() {}
}
