package io.cqlrows.client.live;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.datastax.oss.driver.api.core.data.CqlVector;
import com.datastax.oss.driver.api.core.type.DataType;
import com.datastax.oss.driver.api.core.type.DataTypes;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cqlrows.testing.Corpus;
import io.netty.buffer.ByteBufUtil;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The corpus's schema and data ({@code schema.cql}, {@code data.cql} from parser-core's test-jar)
 * loaded into the keyspace {@value #KEYSPACE} of the live server, once per test JVM, with the Java
 * driver: every type, NULLs, empty values, extremes, unicode.
 *
 * <ul>
 *   <li>The keyspace is dropped first, so each run starts afresh, also on an external server.
 *       {@code corpus.} is rewritten to {@code cqlrows_live.}.
 *   <li>Statements run in file order, one per line; comment lines (the statements Cassandra
 *       rejected among them) are skipped. {@code ALTER TYPE} of schema.cql runs where data.cql says
 *       it ran ("AFTER the ALTER TYPE"), so {@code udt_alter} rows 1-2 keep 2 fields.
 *   <li>Statements with {@code ?} are bound from the {@code -- bound:} line before them: JSON
 *       arrays by the prepared variables' types; the two lines that are not JSON (id 42 and {@code
 *       v_float1536 = vec1536(1)}) by hand; {@code vec1536} (200 rows) and {@code vec128} (5,000
 *       rows) from their formulas ({@link #vec1536}, {@link #vec128}), asynchronously with at most
 *       {@link LiveDriver#MAX_IN_FLIGHT} in flight.
 * </ul>
 *
 * <p>Threading: {@link #load} is synchronized; later callers return at once.
 */
final class LiveCorpus {
  static final String KEYSPACE = "cqlrows_live";
  static final int VEC1536_ROWS = 200;
  static final int VEC128_ROWS = 5000;

  private static final Pattern CREATE_TABLE =
      Pattern.compile("^CREATE TABLE corpus\\.(\"(?:[^\"]|\"\")+\"|\\w+) \\(");
  private static final String ID_42 =
      "[42, \"long text \" + 'x' * 70000, U+1F600 * 5000, \"\", 0x]";
  private static final ObjectMapper JSON = new ObjectMapper();

  private static List<String> tables;

  private LiveCorpus() {}

  /** Loads the corpus unless this JVM already did; returns the tables, in schema order. */
  static synchronized List<String> load(CqlSession session) throws InterruptedException {
    if (tables != null) {
      return tables;
    }
    long start = System.nanoTime();
    session.execute(
        SimpleStatement.newInstance("DROP KEYSPACE IF EXISTS " + KEYSPACE)
            .setTimeout(Duration.ofSeconds(60)));
    List<String> names = new ArrayList<>();
    List<String> deferred = new ArrayList<>();
    int executed = 0;
    for (String line : lines("schema.cql")) {
      String cql = rewrite(line);
      if (cql.startsWith("ALTER TYPE ")) {
        deferred.add(cql);
        continue;
      }
      Matcher m = CREATE_TABLE.matcher(line);
      if (m.find()) {
        names.add(m.group(1));
      }
      ddl(session, cql);
      executed++;
    }

    String bound = null;
    int rows = 0;
    for (String raw : resource("data.cql").lines().toList()) {
      String line = raw.strip();
      if (line.startsWith("-- bound: ")) {
        bound = line.substring("-- bound: ".length());
        continue;
      }
      if (line.startsWith("--") && line.contains("AFTER the ALTER TYPE")) {
        for (String alter : deferred) {
          ddl(session, alter);
          executed++;
        }
        deferred.clear();
      }
      if (line.isEmpty() || line.startsWith("--")) {
        continue;
      }
      String cql = rewrite(line);
      if (!hasBindMarker(cql)) {
        session.execute(cql);
        rows++;
      } else if (cql.startsWith("INSERT INTO " + KEYSPACE + ".vec1536 ")) {
        PreparedStatement insert = session.prepare(cql);
        LiveDriver.executeAll(session, VEC1536_ROWS, id -> insert.bind(id, vector(vec1536(id))));
        rows += VEC1536_ROWS;
      } else if (cql.startsWith("INSERT INTO " + KEYSPACE + ".vec128 ")) {
        PreparedStatement insert = session.prepare(cql);
        LiveDriver.executeAll(session, VEC128_ROWS, id -> insert.bind(id, vector(vec128(id))));
        rows += VEC128_ROWS;
      } else {
        PreparedStatement statement = session.prepare(cql);
        session.execute(statement.bind(values(statement, bound, cql)));
        rows++;
      }
      bound = null;
      executed++;
    }
    for (String alter : deferred) { // no marker found: still run it
      ddl(session, alter);
    }
    System.err.printf(
        "[cqlrows] corpus loaded into %s in %d ms: %d statements, %d writes%n",
        KEYSPACE, (System.nanoTime() - start) / 1_000_000, executed, rows);
    tables = List.copyOf(names);
    return tables;
  }

  /** The values of data.cql's JSON {@code -- bound: [id, ...]} line for {@code id}. */
  static JsonNode bound(int id) {
    for (String line : resource("data.cql").lines().toList()) {
      if (line.startsWith("-- bound: [" + id + ",")) {
        return Corpus.json(line.substring("-- bound: ".length()));
      }
    }
    throw new IllegalArgumentException("No JSON '-- bound:' line for id " + id);
  }

  /** {@code vec1536} row {@code id}, by data.cql's formula. */
  static float[] vec1536(int id) {
    float[] v = new float[1536];
    for (int j = 0; j < v.length; j++) {
      v[j] = j < 8 ? (float) StrictMath.sin(id * 8 + j) : ((id * 31 + j * 7) % 1000 - 500) / 4.0f;
    }
    return v;
  }

  /** {@code vec128} row {@code id}, by data.cql's formula. */
  static float[] vec128(int id) {
    float[] v = new float[128];
    for (int j = 0; j < v.length; j++) {
      v[j] = j < 8 ? (float) StrictMath.sin(id * 8 + j) : ((id * 131 + j * 17) % 512 - 256) / 2.0f;
    }
    return v;
  }

  /** A driver vector of the floats. */
  static CqlVector<Float> vector(float[] v) {
    List<Float> boxed = new ArrayList<>(v.length);
    for (float f : v) {
      boxed.add(f);
    }
    return CqlVector.newInstance(boxed);
  }

  private static void ddl(CqlSession session, String cql) {
    session.execute(SimpleStatement.newInstance(cql).setTimeout(Duration.ofSeconds(60)));
  }

  /** The values of a statement with bind markers, from the {@code -- bound:} line before it. */
  private static Object[] values(PreparedStatement statement, String bound, String cql) {
    if (bound == null) {
      throw new IllegalStateException("No '-- bound:' line before " + cql);
    }
    if (bound.startsWith("v_float1536 = vec1536(1)")) {
      return new Object[] {vector(vec1536(1))};
    }
    if (bound.equals(ID_42)) {
      return new Object[] {
        42,
        "long text " + "x".repeat(70_000),
        "\uD83D\uDE00".repeat(5000),
        "",
        ByteBuffer.allocate(0)
      };
    }
    JsonNode array;
    try {
      array = JSON.readTree(bound);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot bind '" + bound + "' for " + cql, e);
    }
    int n = statement.getVariableDefinitions().size();
    if (!array.isArray() || array.size() != n) {
      throw new IllegalStateException("'" + bound + "' does not have " + n + " values for " + cql);
    }
    Object[] values = new Object[n];
    for (int i = 0; i < n; i++) {
      values[i] = value(statement.getVariableDefinitions().get(i).getType(), array.get(i), cql);
    }
    return values;
  }

  private static Object value(DataType type, JsonNode json, String cql) {
    if (json.isNull()) {
      return null;
    } else if (type.equals(DataTypes.INT)) {
      return json.intValue();
    } else if (type.equals(DataTypes.TEXT) || type.equals(DataTypes.ASCII)) {
      return json.textValue();
    } else if (type.equals(DataTypes.DECIMAL)) {
      return new BigDecimal(json.textValue());
    } else if (type.equals(DataTypes.BLOB)) {
      return ByteBuffer.wrap(ByteBufUtil.decodeHexDump(json.textValue().substring(2)));
    }
    throw new IllegalStateException("No JSON binding for " + type + " in " + cql);
  }

  /** Whether {@code cql} has a {@code ?} outside string literals and quoted names. */
  static boolean hasBindMarker(String cql) {
    char quote = 0;
    for (int i = 0; i < cql.length(); i++) {
      char c = cql.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          quote = 0; // a doubled quote ends and reopens: same result
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '?') {
        return true;
      }
    }
    return false;
  }

  private static String rewrite(String cql) {
    return cql.replace("CREATE KEYSPACE corpus ", "CREATE KEYSPACE " + KEYSPACE + " ")
        .replace("corpus.", KEYSPACE + ".");
  }

  /** The statements of a corpus script: its non-blank lines that are not comments. */
  private static List<String> lines(String name) {
    List<String> out = new ArrayList<>();
    for (String line : resource(name).lines().toList()) {
      String s = line.strip();
      if (!s.isEmpty() && !s.startsWith("--")) {
        out.add(s);
      }
    }
    return out;
  }

  private static String resource(String name) {
    try (InputStream in = LiveCorpus.class.getResourceAsStream(Corpus.ROOT + name)) {
      if (in == null) {
        throw new IllegalStateException("No " + Corpus.ROOT + name + " on the test classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
