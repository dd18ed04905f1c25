package io.cqlrows.capture.pcap;

import java.io.IOException;

/** One capture format's packet loop, behind {@link PcapReader}. Not thread-safe. */
interface PacketSource {
  /**
   * The next packet, or {@code null} at the end of the input.
   *
   * @throws PcapFormatException if the file is malformed or ends inside a structure
   */
  PcapPacket next() throws IOException;
}
