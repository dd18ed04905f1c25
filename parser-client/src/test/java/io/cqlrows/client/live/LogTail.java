package io.cqlrows.client.live;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/** The last lines of a log file, for error messages. Stateless; safe from any thread. */
final class LogTail {

  /** How much of the end of a file is read at most. */
  private static final int MAX_BYTES = 256 * 1024;

  private LogTail() {}

  /**
   * Returns a block naming {@code file} followed by its last {@code lines} lines, or saying that it
   * does not exist or cannot be read. Never throws.
   */
  static String of(Path file, int lines) {
    if (!Files.isRegularFile(file)) {
      return "--- " + file + ": no such file ---\n";
    }
    try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
      long length = in.length();
      int size = (int) Math.min(length, MAX_BYTES);
      byte[] bytes = new byte[size];
      in.seek(length - size);
      in.readFully(bytes);
      String[] all = new String(bytes, StandardCharsets.UTF_8).split("\r?\n", -1);
      int end = all.length > 0 && all[all.length - 1].isEmpty() ? all.length - 1 : all.length;
      int start = Math.max(0, end - lines);
      return "--- "
          + file
          + " (last "
          + (end - start)
          + " lines) ---\n"
          + String.join("\n", Arrays.asList(all).subList(start, end))
          + "\n";
    } catch (IOException e) {
      return "--- " + file + ": cannot be read: " + e + " ---\n";
    }
  }
}
