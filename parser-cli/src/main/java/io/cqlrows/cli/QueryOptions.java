package io.cqlrows.cli;

import io.cqlrows.arrow.ArrowMapping;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.request.Consistency;
import java.math.RoundingMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The parsed command line of {@code query}.
 *
 * @param host the server's address
 * @param port its CQL port
 * @param protocol 4 or 5, or 0 for the highest the server accepts (5, falling back to 4)
 * @param compression the compression to ask for, or null for LZ4 when the server accepts it
 * @param user the role to authenticate as, or null
 * @param passwordEnv the environment variable holding the password, or null (then a prompt)
 * @param keyspace the keyspace to {@code USE} first, or null
 * @param consistency the consistency of every statement
 * @param pageSize rows per page
 * @param format {@code table}, {@code vertical}, {@code jsonl}, {@code csv} or {@code arrow}
 * @param output the file to write, or null for stdout (required for {@code arrow})
 * @param maxRows the most rows to fetch per statement, or 0 for all
 * @param jsonNumbers whether {@code jsonl} writes exact numbers as JSON numbers
 * @param streaming whether large pages reach the output row by row
 * @param quiet whether nothing but results and errors is printed (no progress, no row counts)
 * @param timing whether each statement's time, pages, rows and rows/s go to stderr
 * @param tracing whether each statement is traced and its trace printed after its result
 * @param timeoutSeconds how long to wait for the connection and for each page, or 0 for ever
 * @param file the file of statements, one per line, or null
 * @param statements the statements of the command line (none: from {@code file} or stdin)
 * @param tls how to speak TLS, or null for a plaintext connection
 * @param arrow how {@code --format arrow} writes
 * @param cqlshrc the cqlsh configuration file read ({@link Cqlshrc#NONE} for none), whose values
 *     are in the options above unless the command line gave its own; its password, if any, is used
 *     for its own username only
 */
record QueryOptions(
    String host,
    int port,
    int protocol,
    Compression compression,
    String user,
    String passwordEnv,
    String keyspace,
    Consistency consistency,
    int pageSize,
    String format,
    Path output,
    long maxRows,
    boolean jsonNumbers,
    boolean streaming,
    boolean quiet,
    boolean timing,
    boolean tracing,
    long timeoutSeconds,
    Path file,
    List<String> statements,
    Tls tls,
    Arrow arrow,
    Cqlshrc cqlshrc) {

  /**
   * The options of {@code --format arrow}.
   *
   * @param batchRows the least rows per record batch (pages are gathered until they hold that
   *     many), or 0 for one batch per page
   * @param decimalScale the scale of decimals as Decimal128, or -1 for text
   * @param inetAsText whether inets are their text form (else their address bytes)
   */
  record Arrow(int batchRows, int decimalScale, boolean inetAsText) {
    /** One batch per page, decimals as text, inets as text. */
    static final Arrow DEFAULTS = new Arrow(0, -1, true);

    /** The mapping of these options; decimals rounded half-even to the scale. */
    ArrowMapping mapping() {
      ArrowMapping m = ArrowMapping.defaults();
      if (decimalScale >= 0) {
        m = m.withDecimal128(decimalScale, RoundingMode.HALF_EVEN);
      }
      return inetAsText ? m.withInetAsText() : m;
    }
  }

  /**
   * The TLS options of the command line: any of them turns TLS on.
   *
   * @param ca the PEM bundle of the certificate authorities to trust, or null for the JDK's
   * @param cert the client certificate chain (PEM) for mutual TLS, or null
   * @param key its private key (unencrypted PKCS#8 PEM), or null
   * @param insecure whether the server's certificate is not verified at all
   * @param serverName the name to check the certificate against and send as SNI, or null for the
   *     host
   */
  record Tls(Path ca, Path cert, Path key, boolean insecure, String serverName) {}

  static final int DEFAULT_PORT = 9042;
  static final int DEFAULT_PAGE_SIZE = 5000;
  static final long DEFAULT_TIMEOUT_SECONDS = 120;

  /** Parses the arguments after {@code query}; {@link CliOptions.Help} for {@code --help}. */
  static QueryOptions parse(String[] args) throws CliOptions.Help {
    return parse(args, System.getenv());
  }

  /**
   * Parses the arguments after {@code query}, with the cqlsh configuration file of {@code
   * --cqlshrc} or, unless {@code --no-cqlshrc}, the one in {@code env}'s {@code HOME}.
   */
  static QueryOptions parse(String[] args, Map<String, String> env) throws CliOptions.Help {
    String host = null;
    Integer port = null;
    int protocol = 0;
    Compression compression = null;
    String user = null;
    String passwordEnv = null;
    String keyspace = null;
    Path cqlshrcFile = null;
    boolean noCqlshrc = false;
    Consistency consistency = Consistency.LOCAL_ONE;
    int pageSize = DEFAULT_PAGE_SIZE;
    String format = "table";
    Path output = null;
    long maxRows = 0;
    boolean jsonNumbers = false;
    boolean streaming = false;
    boolean quiet = false;
    boolean timing = false;
    boolean tracing = false;
    Long timeout = null;
    Path file = null;
    int arrowBatchRows = 0;
    int arrowDecimal = -1;
    String arrowInet = null;
    List<String> statements = new ArrayList<>();
    boolean ssl = false;
    boolean sslInsecure = false;
    Path sslCa = null;
    Path sslCert = null;
    Path sslKey = null;
    String sslServerName = null;
    for (int i = 1; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--help") || a.equals("-h")) {
        throw new CliOptions.Help(Usage.QUERY);
      }
      if (!a.startsWith("--") || a.length() == 2) {
        statements.add(a);
        continue;
      }
      switch (a) {
        case "--streaming" -> streaming = true;
        case "--json-numbers" -> jsonNumbers = true;
        case "--quiet" -> quiet = true;
        case "--timing" -> timing = true;
        case "--tracing" -> tracing = true;
        case "--ssl" -> ssl = true;
        case "--ssl-insecure" -> sslInsecure = true;
        case "--no-cqlshrc" -> noCqlshrc = true;
        default -> {
          if (!WITH_VALUE.contains(a)) {
            throw Usage.unknownOption(a, WITH_VALUE, FLAGS, Usage.QUERY);
          }
        }
      }
      if (!WITH_VALUE.contains(a)) {
        continue;
      }
      if (++i == args.length) {
        throw new Usage.Mistake(a + " needs a value", Usage.QUERY);
      }
      String v = args[i];
      switch (a) {
        case "--host" -> host = v;
        case "--port" -> port = (int) number(a, v, 1, 65535);
        case "--protocol" -> protocol = v.equals("auto") ? 0 : (int) number(a, v, 4, 5);
        case "--compression" -> compression = compression(v);
        case "--user" -> user = v;
        case "--password-env" -> passwordEnv = v;
        case "--keyspace" -> keyspace = v;
        case "--consistency" -> consistency = consistency(v);
        case "--page-size" -> pageSize = (int) number(a, v, 1, Integer.MAX_VALUE);
        case "--format" -> format = format(v);
        case "--output" -> output = Path.of(v);
        case "--max-rows" -> maxRows = number(a, v, 1, Long.MAX_VALUE);
        case "--file" -> file = Path.of(v);
        case "--timeout" -> timeout = number(a, v, 0, Long.MAX_VALUE / 1_000_000_000L);
        case "--ssl-ca" -> sslCa = Path.of(v);
        case "--ssl-cert" -> sslCert = Path.of(v);
        case "--ssl-key" -> sslKey = Path.of(v);
        case "--ssl-server-name" -> sslServerName = v;
        case "--cqlshrc" -> cqlshrcFile = Path.of(v);
        case "--arrow-batch-rows" -> arrowBatchRows = (int) number(a, v, 1, 1 << 24);
        case "--arrow-decimal" -> arrowDecimal = (int) number(a, v, 0, 38);
        case "--arrow-inet" -> arrowInet = inet(v);
        default -> throw new AssertionError(a);
      }
    }
    if (noCqlshrc && cqlshrcFile != null) {
      throw new Usage.Mistake("give --cqlshrc FILE or --no-cqlshrc, not both", Usage.QUERY);
    }
    Cqlshrc rc = cqlshrc(noCqlshrc ? null : cqlshrcFile, noCqlshrc, env);
    if ((sslCert == null) != (sslKey == null)) {
      throw new Usage.Mistake("--ssl-cert and --ssl-key go together (mutual TLS)", Usage.QUERY);
    }
    if (sslInsecure && sslCa != null) {
      throw new Usage.Mistake("give --ssl-ca or --ssl-insecure, not both", Usage.QUERY);
    }
    if (sslServerName != null && sslServerName.isBlank()) {
      throw new Usage.Mistake("--ssl-server-name: empty", Usage.QUERY);
    }
    boolean tlsGiven =
        ssl || sslInsecure || sslCa != null || sslCert != null || sslServerName != null;
    Tls tls = null;
    if (tlsGiven || Boolean.TRUE.equals(rc.ssl())) {
      // the command line's TLS options win; the file's [ssl] fills in the others
      if (sslCa == null && !sslInsecure) {
        sslCa = rc.certfile();
        sslInsecure = Boolean.FALSE.equals(rc.validate()) && sslCa == null;
      }
      if (sslCert == null && rc.usercert() != null && rc.userkey() != null) {
        sslCert = rc.usercert();
        sslKey = rc.userkey();
      }
      tls = new Tls(sslCa, sslCert, sslKey, sslInsecure, sslServerName);
    }
    if (user == null) {
      user = rc.user();
    }
    if (host == null) {
      host = rc.host() != null ? rc.host() : "127.0.0.1";
    }
    if (port == null) {
      port = rc.port() != null ? rc.port() : DEFAULT_PORT;
    }
    if (keyspace == null) {
      keyspace = rc.keyspace();
    }
    if (timeout == null) {
      timeout = rc.timeoutSeconds() != null ? rc.timeoutSeconds() : DEFAULT_TIMEOUT_SECONDS;
    }
    if (file != null && !statements.isEmpty()) {
      throw new Usage.Mistake("give statements or --file, not both", Usage.QUERY);
    }
    if (format.equals("arrow") && output == null) {
      throw new Usage.Mistake("--format arrow needs --output FILE", Usage.QUERY);
    }
    if ((arrowBatchRows > 0 || arrowDecimal >= 0 || arrowInet != null) && !format.equals("arrow")) {
      throw new Usage.Mistake("the --arrow-* options are for --format arrow", Usage.QUERY);
    }
    if (jsonNumbers && !format.equals("jsonl")) {
      throw new Usage.Mistake("--json-numbers is for --format jsonl", Usage.QUERY);
    }
    if (passwordEnv != null && user == null) {
      throw new Usage.Mistake("--password-env needs --user", Usage.QUERY);
    }
    if (protocol == 5 && compression == Compression.SNAPPY) {
      throw new Usage.Mistake(
          "--compression snappy needs --protocol 4 (v5 has LZ4 only)", Usage.QUERY);
    }
    return new QueryOptions(
        host,
        port,
        protocol,
        compression,
        user,
        passwordEnv,
        keyspace,
        consistency,
        pageSize,
        format,
        output,
        maxRows,
        jsonNumbers,
        streaming,
        quiet,
        timing,
        tracing,
        timeout,
        file,
        List.copyOf(statements),
        tls,
        new Arrow(arrowBatchRows, arrowDecimal, !"binary".equals(arrowInet)),
        rc);
  }

  /** The cqlsh configuration: {@code file}, else the default one, else none. */
  private static Cqlshrc cqlshrc(Path file, boolean none, Map<String, String> env) {
    if (none) {
      return Cqlshrc.NONE;
    }
    Path f = file != null ? file : Cqlshrc.defaultFile(env);
    if (f == null) {
      return Cqlshrc.NONE;
    }
    try {
      return Cqlshrc.read(f);
    } catch (Cqlshrc.Invalid e) {
      throw new Usage.Mistake(
          e.getMessage() + (file == null ? " (--no-cqlshrc leaves it unread)" : ""), "");
    }
  }

  /** The password of the cqlsh configuration file, if it is for {@link #user}. */
  String cqlshrcPassword() {
    return user != null && user.equals(cqlshrc.user()) ? cqlshrc.password() : null;
  }

  /** The options that take no value. */
  private static final List<String> FLAGS =
      List.of(
          "--streaming",
          "--json-numbers",
          "--quiet",
          "--timing",
          "--tracing",
          "--ssl",
          "--ssl-insecure",
          "--no-cqlshrc",
          "--help");

  /** The options that take a value. */
  private static final List<String> WITH_VALUE =
      List.of(
          "--host",
          "--port",
          "--protocol",
          "--compression",
          "--user",
          "--password-env",
          "--keyspace",
          "--consistency",
          "--page-size",
          "--format",
          "--output",
          "--max-rows",
          "--file",
          "--timeout",
          "--ssl-ca",
          "--ssl-cert",
          "--ssl-key",
          "--ssl-server-name",
          "--cqlshrc",
          "--arrow-batch-rows",
          "--arrow-decimal",
          "--arrow-inet");

  private static Compression compression(String v) {
    return switch (v) {
      case "none" -> Compression.NONE;
      case "lz4" -> Compression.LZ4;
      case "snappy" -> Compression.SNAPPY;
      default ->
          throw new Usage.Mistake(
              "--compression: " + v + " (expected: none, lz4 or snappy)", Usage.QUERY);
    };
  }

  private static Consistency consistency(String v) {
    try {
      return Consistency.valueOf(v.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      StringBuilder names = new StringBuilder();
      for (Consistency c : Consistency.values()) {
        names.append(names.length() == 0 ? "" : ", ").append(c);
      }
      throw new Usage.Mistake(
          "--consistency: " + v + " (expected one of " + names + ")", Usage.QUERY);
    }
  }

  private static String inet(String v) {
    return switch (v) {
      case "text", "binary" -> v;
      default ->
          throw new Usage.Mistake(
              "--arrow-inet: " + v + " (expected: text or binary)", Usage.QUERY);
    };
  }

  private static String format(String v) {
    return switch (v) {
      case "table", "vertical", "jsonl", "csv", "arrow" -> v;
      default ->
          throw new Usage.Mistake(
              "--format: " + v + " (expected: table, vertical, jsonl, csv or arrow)", Usage.QUERY);
    };
  }

  private static long number(String option, String value, long min, long max) {
    try {
      long n = Long.parseLong(value);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new Usage.Mistake(
        option + ": " + value + " (expected: a number from " + min + " to " + max + ")",
        Usage.QUERY);
  }
}
