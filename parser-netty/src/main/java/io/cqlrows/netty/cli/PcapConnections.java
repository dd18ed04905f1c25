package io.cqlrows.netty.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** The CQL connections of a pcap/pcapng file. */
final class PcapConnections {
  private PcapConnections() {}

  static List<Captures.Connection> read(Path file, Integer port) throws IOException {
    throw new IOException("pcap files are not supported yet");
  }
}
