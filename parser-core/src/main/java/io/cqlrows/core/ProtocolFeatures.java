package io.cqlrows.core;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The protocol extensions in use on one connection: what the client named in its STARTUP, with the
 * parameters the server advertised in SUPPORTED. Cassandra defines none; ScyllaDB defines several
 * for protocol v4 that change the bytes of responses and requests (see {@code docs/scylladb.md}):
 *
 * <table>
 *   <caption>Extensions cqlrows understands</caption>
 *   <tr><th>STARTUP key</th><th>effect</th></tr>
 *   <tr><td>{@value #SCYLLA_USE_METADATA_ID}</td><td>v4 PREPARED results carry {@code
 *       result_metadata_id} and v4 EXECUTE requests send it, as on v5; ROWS results may report
 *       {@code Metadata_changed}</td></tr>
 *   <tr><td>{@value #SCYLLA_LWT_ADD_METADATA_MARK}</td><td>a bit of the prepared metadata flags
 *       (the mask from SUPPORTED, {@code LWT_OPTIMIZATION_META_BIT_MASK}) marks a lightweight
 *       transaction ({@link PreparedResult#isLwt()})</td></tr>
 *   <tr><td>{@value #TABLETS_ROUTING_V1}</td><td>responses may carry a {@value
 *       TabletRouting#PAYLOAD_KEY} custom payload ({@link TabletRouting})</td></tr>
 *   <tr><td>{@value #SCYLLA_RATE_LIMIT_ERROR}</td><td>an ERROR code of its own (from SUPPORTED,
 *       {@code ERROR_CODE}) for a rejected over-rate operation</td></tr>
 * </table>
 *
 * <p>An extension is on only when the client names it in STARTUP; a server turns on nothing by
 * itself. Build the value of a connection with {@link #negotiate} (a client: what the server offers
 * and cqlrows supports), {@link #fromStartup} (a replay: what a captured STARTUP named) or {@link
 * #withExtension} (a capture without its STARTUP), and hand the same value to every component of
 * the connection: the result reader, the rows handler, the request encoder.
 *
 * <p>Immutable and thread-safe; {@link #NONE} (what Cassandra connections use) is the default
 * everywhere.
 */
public final class ProtocolFeatures {
  /** STARTUP key: {@code result_metadata_id} on protocol v4 (ScyllaDB). */
  public static final String SCYLLA_USE_METADATA_ID = "SCYLLA_USE_METADATA_ID";

  /** STARTUP key: the LWT bit in prepared metadata flags (ScyllaDB). */
  public static final String SCYLLA_LWT_ADD_METADATA_MARK = "SCYLLA_LWT_ADD_METADATA_MARK";

  /** STARTUP key: tablet routing information in custom payloads (ScyllaDB). */
  public static final String TABLETS_ROUTING_V1 = "TABLETS_ROUTING_V1";

  /** STARTUP key: a dedicated ERROR code for rate-limited operations (ScyllaDB). */
  public static final String SCYLLA_RATE_LIMIT_ERROR = "SCYLLA_RATE_LIMIT_ERROR";

  /** The LWT mask ScyllaDB advertises, used when a STARTUP names the extension without one. */
  public static final int DEFAULT_LWT_MASK = 0x80000000;

  /** The rate-limit error code ScyllaDB advertises, used when SUPPORTED is not known. */
  public static final int DEFAULT_RATE_LIMIT_ERROR_CODE = 0xF000;

  private static final String LWT_MASK_PARAMETER = "LWT_OPTIMIZATION_META_BIT_MASK";
  private static final String ERROR_CODE_PARAMETER = "ERROR_CODE";

  /** No extension: a Cassandra connection. */
  public static final ProtocolFeatures NONE = new ProtocolFeatures(false, 0, false, false, 0);

  private final boolean useMetadataId;

  /** The LWT mask, or 0 when the extension is off. */
  private final int lwtMask;

  private final boolean tabletsRoutingV1;
  private final boolean rateLimitError;
  private final int rateLimitErrorCode;

  private ProtocolFeatures(
      boolean useMetadataId,
      int lwtMask,
      boolean tabletsRoutingV1,
      boolean rateLimitError,
      int rateLimitErrorCode) {
    this.useMetadataId = useMetadataId;
    this.lwtMask = lwtMask;
    this.tabletsRoutingV1 = tabletsRoutingV1;
    this.rateLimitError = rateLimitError;
    this.rateLimitErrorCode = rateLimitErrorCode;
  }

  /**
   * What a client should ask for: every extension cqlrows supports that {@code supported} (the
   * decoded SUPPORTED response) offers with parameters it understands. A server that offers none
   * (Cassandra) gets {@link #NONE}, and {@link #startupOptions()} is then empty.
   *
   * @param supported the SUPPORTED {@code [string multimap]}
   */
  public static ProtocolFeatures negotiate(Map<String, List<String>> supported) {
    Objects.requireNonNull(supported, "supported");
    int lwtMask = 0;
    if (supported.containsKey(SCYLLA_LWT_ADD_METADATA_MARK)) {
      Long mask =
          unsignedParameter(supported.get(SCYLLA_LWT_ADD_METADATA_MARK), LWT_MASK_PARAMETER);
      lwtMask = mask == null ? 0 : (int) (long) mask;
    }
    Integer errorCode = null;
    if (supported.containsKey(SCYLLA_RATE_LIMIT_ERROR)) {
      errorCode = intParameter(supported.get(SCYLLA_RATE_LIMIT_ERROR), ERROR_CODE_PARAMETER);
    }
    return of(
        supported.containsKey(SCYLLA_USE_METADATA_ID),
        lwtMask,
        supported.containsKey(TABLETS_ROUTING_V1),
        errorCode != null,
        errorCode == null ? 0 : errorCode);
  }

  /**
   * The extensions a STARTUP named (a replay reads them from the captured request). Keys cqlrows
   * does not know are ignored. An LWT mark without a parseable mask uses {@link #DEFAULT_LWT_MASK};
   * the rate-limit code is {@link #DEFAULT_RATE_LIMIT_ERROR_CODE}, since STARTUP does not repeat it
   * (see {@link #withSupported}).
   *
   * @param startup the STARTUP {@code [string map]}
   */
  public static ProtocolFeatures fromStartup(Map<String, String> startup) {
    Objects.requireNonNull(startup, "startup");
    int lwtMask = 0;
    if (startup.containsKey(SCYLLA_LWT_ADD_METADATA_MARK)) {
      // drivers send the parameter as ScyllaDB advertises it (NAME=mask) or the bare mask
      String value = startup.get(SCYLLA_LWT_ADD_METADATA_MARK);
      Long mask = value == null ? null : unsignedParameter(List.of(value), LWT_MASK_PARAMETER);
      if (mask == null && value != null) {
        mask = unsigned(value);
      }
      lwtMask = mask == null || mask == 0 ? DEFAULT_LWT_MASK : (int) (long) mask;
    }
    return of(
        startup.containsKey(SCYLLA_USE_METADATA_ID),
        lwtMask,
        startup.containsKey(TABLETS_ROUTING_V1),
        startup.containsKey(SCYLLA_RATE_LIMIT_ERROR),
        DEFAULT_RATE_LIMIT_ERROR_CODE);
  }

  /**
   * These extensions, with the parameters of a SUPPORTED response where it gives them (the
   * rate-limit error code, the LWT mask). Extensions stay on or off as they are.
   */
  public ProtocolFeatures withSupported(Map<String, List<String>> supported) {
    Objects.requireNonNull(supported, "supported");
    int mask = lwtMask;
    if (mask != 0) {
      Long advertised =
          unsignedParameter(supported.get(SCYLLA_LWT_ADD_METADATA_MARK), LWT_MASK_PARAMETER);
      if (advertised != null && advertised != 0) {
        mask = (int) (long) advertised;
      }
    }
    int code = rateLimitErrorCode;
    if (rateLimitError) {
      Integer advertised =
          intParameter(supported.get(SCYLLA_RATE_LIMIT_ERROR), ERROR_CODE_PARAMETER);
      if (advertised != null) {
        code = advertised;
      }
    }
    return of(useMetadataId, mask, tabletsRoutingV1, rateLimitError, code);
  }

  /**
   * These extensions and one more, with its default parameters ({@link #DEFAULT_LWT_MASK}, {@link
   * #DEFAULT_RATE_LIMIT_ERROR_CODE}): for a capture whose STARTUP is not available.
   *
   * @param name a STARTUP key, e.g. {@value #SCYLLA_USE_METADATA_ID}
   * @throws IllegalArgumentException if cqlrows does not know the extension (see {@link
   *     #knownExtensions()})
   */
  public ProtocolFeatures withExtension(String name) {
    Objects.requireNonNull(name, "name");
    switch (name) {
      case SCYLLA_USE_METADATA_ID:
        return of(true, lwtMask, tabletsRoutingV1, rateLimitError, rateLimitErrorCode);
      case SCYLLA_LWT_ADD_METADATA_MARK:
        return of(
            useMetadataId,
            lwtMask != 0 ? lwtMask : DEFAULT_LWT_MASK,
            tabletsRoutingV1,
            rateLimitError,
            rateLimitErrorCode);
      case TABLETS_ROUTING_V1:
        return of(useMetadataId, lwtMask, true, rateLimitError, rateLimitErrorCode);
      case SCYLLA_RATE_LIMIT_ERROR:
        return of(
            useMetadataId,
            lwtMask,
            tabletsRoutingV1,
            true,
            rateLimitError ? rateLimitErrorCode : DEFAULT_RATE_LIMIT_ERROR_CODE);
      default:
        throw new IllegalArgumentException(
            "extension: " + name + " (expected one of " + knownExtensions() + ")");
    }
  }

  /** The STARTUP keys of every extension cqlrows understands, sorted. */
  public static SortedSet<String> knownExtensions() {
    return Collections.unmodifiableSortedSet(
        new TreeSet<>(
            List.of(
                SCYLLA_LWT_ADD_METADATA_MARK,
                SCYLLA_RATE_LIMIT_ERROR,
                SCYLLA_USE_METADATA_ID,
                TABLETS_ROUTING_V1)));
  }

  private static ProtocolFeatures of(
      boolean useMetadataId,
      int lwtMask,
      boolean tabletsRoutingV1,
      boolean rateLimitError,
      int rateLimitErrorCode) {
    if (!useMetadataId && lwtMask == 0 && !tabletsRoutingV1 && !rateLimitError) {
      return NONE;
    }
    return new ProtocolFeatures(
        useMetadataId, lwtMask, tabletsRoutingV1, rateLimitError, rateLimitErrorCode);
  }

  /**
   * The options these extensions add to a STARTUP request, in a fixed order, with the values
   * ScyllaDB's drivers send: an empty string, or {@code LWT_OPTIMIZATION_META_BIT_MASK=<mask>}.
   * Empty for {@link #NONE}. A new map on every call.
   */
  public Map<String, String> startupOptions() {
    Map<String, String> options = new LinkedHashMap<>();
    if (useMetadataId) {
      options.put(SCYLLA_USE_METADATA_ID, "");
    }
    if (lwtMask != 0) {
      options.put(
          SCYLLA_LWT_ADD_METADATA_MARK,
          LWT_MASK_PARAMETER + "=" + Integer.toUnsignedString(lwtMask));
    }
    if (tabletsRoutingV1) {
      options.put(TABLETS_ROUTING_V1, "");
    }
    if (rateLimitError) {
      options.put(SCYLLA_RATE_LIMIT_ERROR, "");
    }
    return options;
  }

  /** The STARTUP keys of the extensions that are on. */
  public Set<String> extensions() {
    return Collections.unmodifiableSet(startupOptions().keySet());
  }

  /** Whether no extension is on. */
  public boolean isEmpty() {
    return equals(NONE);
  }

  /** Whether {@value #SCYLLA_USE_METADATA_ID} is on. */
  public boolean useMetadataId() {
    return useMetadataId;
  }

  /**
   * Whether PREPARED results and EXECUTE requests carry {@code result_metadata_id} on this protocol
   * version: always on v5 and later; before v5 (ScyllaDB speaks v3 and v4) with {@value
   * #SCYLLA_USE_METADATA_ID}.
   */
  public boolean hasResultMetadataId(int protocolVersion) {
    return protocolVersion >= 5 || useMetadataId;
  }

  /** The LWT mask of {@value #SCYLLA_LWT_ADD_METADATA_MARK}, or 0 when it is off. */
  public int lwtMask() {
    return lwtMask;
  }

  /**
   * Whether prepared metadata flags mark a lightweight transaction: {@code (flags & mask) == mask}
   * under {@value #SCYLLA_LWT_ADD_METADATA_MARK}; always false when it is off.
   */
  public boolean isLwt(int preparedFlags) {
    return lwtMask != 0 && (preparedFlags & lwtMask) == lwtMask;
  }

  /** Whether {@value #TABLETS_ROUTING_V1} is on. */
  public boolean tabletsRoutingV1() {
    return tabletsRoutingV1;
  }

  /** The ERROR code of rate-limited operations under {@value #SCYLLA_RATE_LIMIT_ERROR}. */
  public OptionalInt rateLimitErrorCode() {
    return rateLimitError ? OptionalInt.of(rateLimitErrorCode) : OptionalInt.empty();
  }

  /** Looks up {@code NAME=unsigned-decimal} among an extension's SUPPORTED values. */
  private static Long unsignedParameter(List<String> values, String name) {
    String v = parameter(values, name);
    return v == null ? null : unsigned(v);
  }

  private static Long unsigned(String v) {
    try {
      return Integer.toUnsignedLong(Integer.parseUnsignedInt(v.strip()));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** Looks up {@code NAME=signed-decimal} among an extension's SUPPORTED values. */
  private static Integer intParameter(List<String> values, String name) {
    String v = parameter(values, name);
    if (v == null) {
      return null;
    }
    try {
      return Integer.parseInt(v.strip());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static String parameter(List<String> values, String name) {
    if (values == null) {
      return null;
    }
    String prefix = name + "=";
    for (String v : values) {
      if (v != null && v.strip().startsWith(prefix)) {
        return v.strip().substring(prefix.length());
      }
    }
    return null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ProtocolFeatures f
        && useMetadataId == f.useMetadataId
        && lwtMask == f.lwtMask
        && tabletsRoutingV1 == f.tabletsRoutingV1
        && rateLimitError == f.rateLimitError
        && rateLimitErrorCode == f.rateLimitErrorCode;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        useMetadataId, lwtMask, tabletsRoutingV1, rateLimitError, rateLimitErrorCode);
  }

  @Override
  public String toString() {
    if (isEmpty()) {
      return "ProtocolFeatures{}";
    }
    StringBuilder sb = new StringBuilder("ProtocolFeatures{");
    String sep = "";
    for (Map.Entry<String, String> e : startupOptions().entrySet()) {
      sb.append(sep).append(e.getKey());
      if (!e.getValue().isEmpty()) {
        sb.append('(').append(e.getValue()).append(')');
      }
      sep = ", ";
    }
    if (rateLimitError) {
      sb.append("(ERROR_CODE=0x").append(Integer.toHexString(rateLimitErrorCode)).append(')');
    }
    return sb.append('}').toString();
  }
}
