/**
 * Java values for CQL types that have no fitting JDK class: {@link
 * io.cqlrows.core.value.CqlDuration}, {@link io.cqlrows.core.value.UdtValue}, {@link
 * io.cqlrows.core.value.TupleValue}, and the {@link io.cqlrows.core.value.NotSet} marker. All are
 * immutable and thread-safe.
 */
package io.cqlrows.core.value;
