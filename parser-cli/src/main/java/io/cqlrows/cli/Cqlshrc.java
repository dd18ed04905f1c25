package io.cqlrows.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What {@code query} takes from a cqlsh configuration file ({@code ~/.cassandra/cqlshrc}, or {@code
 * --cqlshrc FILE}), read as cqlsh reads it: INI sections of {@code key = value} (or {@code key:
 * value}) lines, {@code #} and {@code ;} comments, names of sections and keys in any case. The keys
 * that apply (docs/cli.md has the table):
 *
 * <ul>
 *   <li>{@code [connection]}: {@code hostname}, {@code port}, {@code ssl}, {@code timeout}, {@code
 *       request_timeout};
 *   <li>{@code [authentication]}: {@code username}, {@code password}, {@code keyspace}, {@code
 *       credentials} (a file with a {@code [PlainTextAuthProvider]} section of {@code username} and
 *       {@code password});
 *   <li>{@code [ssl]}: {@code certfile}, {@code validate}, {@code userkey}, {@code usercert}.
 * </ul>
 *
 * <p>A password is taken from a file only when no one but its owner can read or change it; from any
 * other file it is ignored, with a warning, as cqlsh warns of it. Other sections and keys are
 * ignored. Files larger than {@value #MAX_BYTES} bytes are refused.
 *
 * @param file the file read
 * @param host {@code [connection] hostname}, or null
 * @param port {@code [connection] port}, or null
 * @param ssl {@code [connection] ssl}, or null
 * @param timeoutSeconds {@code [connection] request_timeout}, else {@code timeout}, or null
 * @param user the username, or null
 * @param password the password, or null (never printed)
 * @param keyspace {@code [authentication] keyspace}, or null
 * @param certfile {@code [ssl] certfile}: the CA bundle to trust, or null
 * @param validate {@code [ssl] validate}, or null
 * @param userkey {@code [ssl] userkey}, or null
 * @param usercert {@code [ssl] usercert}, or null
 * @param warnings what was ignored and why, one line each
 */
record Cqlshrc(
    Path file,
    String host,
    Integer port,
    Boolean ssl,
    Long timeoutSeconds,
    String user,
    String password,
    String keyspace,
    Path certfile,
    Boolean validate,
    Path userkey,
    Path usercert,
    List<String> warnings) {

  /** The most bytes read of a configuration file. */
  static final int MAX_BYTES = 1 << 20;

  /** Nothing configured. */
  static final Cqlshrc NONE =
      new Cqlshrc(
          null, null, null, null, null, null, null, null, null, null, null, null, List.of());

  /** A file that cannot be used: missing, unreadable, too large or not valid. */
  static final class Invalid extends Exception {
    private static final long serialVersionUID = 1L;

    Invalid(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * The default file, {@code $HOME/.cassandra/cqlshrc} ({@code user.home} when {@code HOME} is not
   * set), or null if there is none.
   */
  static Path defaultFile(Map<String, String> env) {
    String home = env.getOrDefault("HOME", System.getProperty("user.home"));
    if (home == null || home.isEmpty()) {
      return null;
    }
    Path file = Path.of(home, ".cassandra", "cqlshrc");
    return Files.isRegularFile(file) ? file : null;
  }

  /** Reads {@code file}. */
  static Cqlshrc read(Path file) throws Invalid {
    Map<String, Map<String, String>> ini = ini(file);
    List<String> warnings = new java.util.ArrayList<>();
    Map<String, String> connection = ini.getOrDefault("connection", Map.of());
    Map<String, String> auth = ini.getOrDefault("authentication", Map.of());
    Map<String, String> tls = ini.getOrDefault("ssl", Map.of());
    String user = auth.get("username");
    String password = null;
    if (auth.containsKey("password")) {
      if (ownerOnly(file)) {
        password = auth.get("password");
      } else {
        warnings.add(
            file
                + ": the password is ignored: other users can read or change this file"
                + " (chmod 600 it)");
      }
    }
    String credentials = auth.get("credentials");
    if (credentials != null) {
      Path credentialsFile = resolve(file, credentials);
      Map<String, String> plain =
          ini(credentialsFile).getOrDefault("plaintextauthprovider", Map.of());
      if (user == null) {
        user = plain.get("username");
      }
      if (password == null && plain.containsKey("password")) {
        if (ownerOnly(credentialsFile)) {
          password = plain.get("password");
        } else {
          warnings.add(
              credentialsFile
                  + ": the password is ignored: other users can read or change this file"
                  + " (chmod 600 it)");
        }
      }
    }
    String timeout = connection.getOrDefault("request_timeout", connection.get("timeout"));
    return new Cqlshrc(
        file,
        connection.get("hostname"),
        connection.containsKey("port")
            ? (int) number(file, "[connection] port", connection.get("port"), 1, 65535, false)
            : null,
        bool(file, "[connection] ssl", connection.get("ssl")),
        timeout == null
            ? null
            : number(
                file,
                connection.containsKey("request_timeout")
                    ? "[connection] request_timeout"
                    : "[connection] timeout",
                timeout,
                0,
                Long.MAX_VALUE / 1_000_000_000L,
                true),
        user,
        password,
        auth.get("keyspace"),
        tls.containsKey("certfile") ? resolve(file, tls.get("certfile")) : null,
        bool(file, "[ssl] validate", tls.get("validate")),
        tls.containsKey("userkey") ? resolve(file, tls.get("userkey")) : null,
        tls.containsKey("usercert") ? resolve(file, tls.get("usercert")) : null,
        List.copyOf(warnings));
  }

  /** Sections to keys to values, names in lower case. */
  static Map<String, Map<String, String>> ini(Path file) throws Invalid {
    String text;
    try {
      if (Files.size(file) > MAX_BYTES) {
        throw new Invalid(file + ": larger than " + MAX_BYTES + " bytes");
      }
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new Invalid(file + ": " + CqlRowsCli.oneLine(e));
    }
    Map<String, Map<String, String>> sections = new HashMap<>();
    Map<String, String> section = null;
    String lastKey = null;
    int n = 0;
    for (String raw : text.split("\r?\n", -1)) {
      n++;
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) {
        continue;
      }
      if (Character.isWhitespace(raw.charAt(0)) && section != null && lastKey != null) {
        section.merge(lastKey, line, (a, b) -> a + "\n" + b); // a continuation line
        continue;
      }
      if (line.startsWith("[")) {
        if (!line.endsWith("]")) {
          throw new Invalid(file + ": line " + n + ": a section header without ']'");
        }
        String name = line.substring(1, line.length() - 1).strip().toLowerCase(Locale.ROOT);
        section = sections.computeIfAbsent(name, k -> new HashMap<>());
        lastKey = null;
        continue;
      }
      int eq = firstOf(line, '=', ':');
      if (section == null || eq <= 0) {
        throw new Invalid(
            file
                + ": line "
                + n
                + (section == null ? ": a key before any [section]" : ": expected key = value"));
      }
      lastKey = line.substring(0, eq).strip().toLowerCase(Locale.ROOT);
      section.put(lastKey, line.substring(eq + 1).strip());
    }
    return sections;
  }

  private static int firstOf(String s, char a, char b) {
    int i = s.indexOf(a);
    int j = s.indexOf(b);
    return i < 0 ? j : j < 0 ? i : Math.min(i, j);
  }

  /** Whether only the file's owner may read or write it (POSIX; elsewhere, true). */
  static boolean ownerOnly(Path file) throws Invalid {
    try {
      Set<PosixFilePermission> p = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
      return !p.contains(PosixFilePermission.GROUP_READ)
          && !p.contains(PosixFilePermission.GROUP_WRITE)
          && !p.contains(PosixFilePermission.OTHERS_READ)
          && !p.contains(PosixFilePermission.OTHERS_WRITE);
    } catch (UnsupportedOperationException e) {
      return true;
    } catch (IOException e) {
      throw new Invalid(file + ": " + CqlRowsCli.oneLine(e));
    }
  }

  /** A path of the file, with {@code ~} for the home directory, relative to the file's folder. */
  private static Path resolve(Path file, String value) {
    String v = value;
    if (v.equals("~") || v.startsWith("~/")) {
      v = System.getenv().getOrDefault("HOME", System.getProperty("user.home")) + v.substring(1);
    }
    Path dir = file.toAbsolutePath().getParent();
    return dir == null ? Path.of(v) : dir.resolve(v);
  }

  private static Boolean bool(Path file, String key, String value) throws Invalid {
    if (value == null) {
      return null;
    }
    // Python's configparser getboolean
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "1", "yes", "true", "on" -> true;
      case "0", "no", "false", "off" -> false;
      default -> throw new Invalid(file + ": " + key + ": " + value + " (expected true or false)");
    };
  }

  /** A whole number, or with {@code seconds} one with a fraction (cqlsh's timeouts), rounded up. */
  private static long number(
      Path file, String key, String value, long min, long max, boolean seconds) throws Invalid {
    try {
      double d = seconds ? Double.parseDouble(value) : Long.parseLong(value);
      if (d >= min && d <= max) {
        return (long) Math.ceil(d);
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new Invalid(
        file + ": " + key + ": " + value + " (expected a number from " + min + " to " + max + ")");
  }

  @Override
  public String toString() {
    return "Cqlshrc[" + file + (password == null ? "" : ", with a password") + "]";
  }
}
