package io.cqlrows.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Opens the capture a command names: a pcap/pcapng file (told by its magic number) becomes its CQL
 * connections; any other file is the raw server-to-client bytes of one connection, with its
 * client-to-server bytes from {@code --c2s} or from a file beside it named with {@code .c2s.}
 * instead of {@code .s2c.}.
 */
final class Captures {
  private Captures() {}

  /**
   * One connection to replay.
   *
   * @param label the connection's name in the output
   * @param clientToServer the client's bytes, or null if unknown
   * @param serverToClient the server's bytes
   * @param midStream whether the bytes start after the connection did
   * @param notes things worth telling the user (a capture that starts mid-connection, gaps)
   */
  @SuppressWarnings("ArrayRecordComponent") // a holder of bytes, never compared
  record Connection(
      String label,
      byte[] clientToServer,
      byte[] serverToClient,
      boolean midStream,
      List<String> notes) {}

  static List<Connection> open(CliOptions options) throws IOException {
    Path file = options.file();
    if (isPcap(file)) {
      return PcapConnections.read(file, options.port());
    }
    byte[] s2c = Files.readAllBytes(file);
    Path c2s = options.clientToServer() != null ? options.clientToServer() : sibling(file);
    byte[] requests = c2s == null ? null : Files.readAllBytes(c2s);
    return List.of(new Connection(file.getFileName().toString(), requests, s2c, false, List.of()));
  }

  /** {@code conn-01.c2s.bin} beside {@code conn-01.s2c.bin}, if it exists. */
  private static Path sibling(Path file) {
    String name = file.getFileName().toString();
    if (!name.contains(".s2c.")) {
      return null;
    }
    Path c2s = file.resolveSibling(name.replace(".s2c.", ".c2s."));
    return Files.isRegularFile(c2s) ? c2s : null;
  }

  private static boolean isPcap(Path file) throws IOException {
    byte[] magic;
    try (InputStream in = Files.newInputStream(file)) {
      magic = in.readNBytes(4);
    }
    if (magic.length < 4) {
      return false;
    }
    int m =
        ((magic[0] & 0xFF) << 24)
            | ((magic[1] & 0xFF) << 16)
            | ((magic[2] & 0xFF) << 8)
            | (magic[3] & 0xFF);
    return m == 0xa1b2c3d4
        || m == 0xd4c3b2a1
        || m == 0xa1b23c4d
        || m == 0x4d3cb2a1
        || m == 0x0a0d0d0a;
  }
}
