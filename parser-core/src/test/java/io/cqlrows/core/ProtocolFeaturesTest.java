package io.cqlrows.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * Negotiation as ScyllaDB's docs/dev/protocol-extensions.md describes it, with the SUPPORTED values
 * transport/server.cc and cql_protocol_extension.cc write, and the STARTUP values ScyllaDB's
 * drivers send (scylla-rust-driver protocol_features.rs: {@code NAME=mask}; the Python driver: the
 * bare mask).
 */
class ProtocolFeaturesTest {
  /** SUPPORTED of a ScyllaDB 2025 node (the sharding keys among them). */
  static Map<String, List<String>> scyllaSupported() {
    Map<String, List<String>> s = new LinkedHashMap<>();
    s.put("COMPRESSION", List.of("lz4", "snappy"));
    s.put("CQL_VERSION", List.of("3.3.1"));
    s.put("SCYLLA_LWT_ADD_METADATA_MARK", List.of("LWT_OPTIMIZATION_META_BIT_MASK=2147483648"));
    s.put("SCYLLA_NR_SHARDS", List.of("4"));
    s.put("SCYLLA_RATE_LIMIT_ERROR", List.of("ERROR_CODE=61440"));
    s.put("SCYLLA_SHARD", List.of("1"));
    s.put("SCYLLA_USE_METADATA_ID", List.of(""));
    s.put("TABLETS_ROUTING_V1", List.of(""));
    s.put("TABLETS_ROUTING_V2_EXPERIMENTAL_V2", List.of(""));
    return s;
  }

  @Test
  void negotiatesEveryExtensionScyllaOffers() {
    ProtocolFeatures f = ProtocolFeatures.negotiate(scyllaSupported());
    assertTrue(f.useMetadataId());
    assertEquals(0x80000000, f.lwtMask());
    assertTrue(f.tabletsRoutingV1());
    assertEquals(OptionalInt.of(0xF000), f.rateLimitErrorCode());
    Map<String, String> expected = new LinkedHashMap<>();
    expected.put("SCYLLA_USE_METADATA_ID", "");
    expected.put("SCYLLA_LWT_ADD_METADATA_MARK", "LWT_OPTIMIZATION_META_BIT_MASK=2147483648");
    expected.put("TABLETS_ROUTING_V1", "");
    expected.put("SCYLLA_RATE_LIMIT_ERROR", "");
    assertEquals(List.copyOf(expected.entrySet()), List.copyOf(f.startupOptions().entrySet()));
  }

  @Test
  void cassandraOffersNothingAndIsAskedForNothing() {
    Map<String, List<String>> cassandra =
        Map.of(
            "PROTOCOL_VERSIONS",
            List.of("3/v3", "4/v4", "5/v5"),
            "COMPRESSION",
            List.of("snappy", "lz4"),
            "CQL_VERSION",
            List.of("3.4.7"));
    ProtocolFeatures f = ProtocolFeatures.negotiate(cassandra);
    assertSame(ProtocolFeatures.NONE, f);
    assertTrue(f.isEmpty());
    assertTrue(f.startupOptions().isEmpty());
    assertFalse(f.hasResultMetadataId(4));
    assertFalse(f.isLwt(0xFFFFFFFF));
    assertEquals(OptionalInt.empty(), f.rateLimitErrorCode());
  }

  @Test
  void anExtensionWithUnreadableParametersIsNotAskedFor() {
    Map<String, List<String>> s = new LinkedHashMap<>();
    s.put("SCYLLA_LWT_ADD_METADATA_MARK", List.of("LWT_OPTIMIZATION_META_BIT_MASK=lots"));
    s.put("SCYLLA_RATE_LIMIT_ERROR", List.of("SOMETHING_ELSE=1"));
    assertSame(ProtocolFeatures.NONE, ProtocolFeatures.negotiate(s));
  }

  @Test
  void aStartupNamesTheExtensionsInEitherDriverForm() {
    ProtocolFeatures rust =
        ProtocolFeatures.fromStartup(
            Map.of(
                "CQL_VERSION",
                "4.0.0",
                "SCYLLA_LWT_ADD_METADATA_MARK",
                "LWT_OPTIMIZATION_META_BIT_MASK=1073741824"));
    assertEquals(0x40000000, rust.lwtMask());
    ProtocolFeatures python =
        ProtocolFeatures.fromStartup(Map.of("SCYLLA_LWT_ADD_METADATA_MARK", "2147483648"));
    assertEquals(0x80000000, python.lwtMask());
    ProtocolFeatures bare =
        ProtocolFeatures.fromStartup(Map.of("SCYLLA_LWT_ADD_METADATA_MARK", ""));
    assertEquals(ProtocolFeatures.DEFAULT_LWT_MASK, bare.lwtMask());

    ProtocolFeatures all =
        ProtocolFeatures.fromStartup(
            Map.of(
                "SCYLLA_USE_METADATA_ID",
                "",
                "TABLETS_ROUTING_V1",
                "",
                "SCYLLA_RATE_LIMIT_ERROR",
                "",
                "DRIVER_NAME",
                "x",
                "SCYLLA_SHARD",
                "3"));
    assertTrue(all.useMetadataId());
    assertTrue(all.tabletsRoutingV1());
    assertEquals(
        OptionalInt.of(ProtocolFeatures.DEFAULT_RATE_LIMIT_ERROR_CODE), all.rateLimitErrorCode());
    assertEquals(0, all.lwtMask());
    assertSame(
        ProtocolFeatures.NONE,
        ProtocolFeatures.fromStartup(Map.of("CQL_VERSION", "3.0.0", "COMPRESSION", "lz4")));
  }

  @Test
  void supportedGivesTheParametersOfWhatStartupTurnedOn() {
    Map<String, List<String>> s = new LinkedHashMap<>(scyllaSupported());
    s.put("SCYLLA_RATE_LIMIT_ERROR", List.of("ERROR_CODE=12345"));
    ProtocolFeatures on =
        ProtocolFeatures.fromStartup(Map.of("SCYLLA_RATE_LIMIT_ERROR", "")).withSupported(s);
    assertEquals(OptionalInt.of(12345), on.rateLimitErrorCode());
    assertEquals(0, on.lwtMask(), "SUPPORTED turns nothing on by itself");
    assertSame(ProtocolFeatures.NONE, ProtocolFeatures.NONE.withSupported(s));
  }

  @Test
  void extensionsByName() {
    ProtocolFeatures f = ProtocolFeatures.NONE;
    for (String name : ProtocolFeatures.knownExtensions()) {
      f = f.withExtension(name);
    }
    assertEquals(ProtocolFeatures.negotiate(scyllaSupported()), f);
    assertEquals(f.hashCode(), ProtocolFeatures.negotiate(scyllaSupported()).hashCode());
    assertEquals(
        List.of(
            "SCYLLA_LWT_ADD_METADATA_MARK",
            "SCYLLA_RATE_LIMIT_ERROR",
            "SCYLLA_USE_METADATA_ID",
            "TABLETS_ROUTING_V1"),
        List.copyOf(ProtocolFeatures.knownExtensions()));
    assertThrows(
        IllegalArgumentException.class, () -> ProtocolFeatures.NONE.withExtension("SCYLLA_SHARD"));
    assertNotEquals(ProtocolFeatures.NONE, f);
  }

  @Test
  void theLwtTestIsTheMaskTest() {
    ProtocolFeatures f = ProtocolFeatures.NONE.withExtension("SCYLLA_LWT_ADD_METADATA_MARK");
    assertTrue(f.isLwt(0x80000001));
    assertFalse(f.isLwt(0x00000001));
    ProtocolFeatures twoBits =
        ProtocolFeatures.fromStartup(
            Map.of("SCYLLA_LWT_ADD_METADATA_MARK", "LWT_OPTIMIZATION_META_BIT_MASK=3221225472"));
    assertTrue(twoBits.isLwt(0xC0000000));
    assertFalse(twoBits.isLwt(0x80000000), "every bit of the mask must be set");
  }
}
