/**
 * The native API's JSON mapping, shared by the client and the server: the request and response
 * records ({@code NativeWire}, {@code RoutingWire}, {@code WorkspaceWire}, {@code WorkflowWire},
 * {@code StatisticsWire}), the two Jackson mappers ({@link io.switchboard.client.wire.Json}), the
 * tree reader ({@link io.switchboard.client.wire.JsonFields}), the hand-made mappings ({@link
 * io.switchboard.client.wire.WireFormat}) and the wire's own errors ({@link
 * io.switchboard.client.wire.WireFormatException}, {@link io.switchboard.client.wire.WireCode}).
 *
 * <p>Internal: not client API; the module {@code io.switchboard.client} exports it only to the
 * modules {@code io.switchboard.server} and {@code io.switchboard.cli}, which use it
 * (docs/decisions.md, 2026-11-26). It may change in any release.
 */
@NullMarked
package io.switchboard.client.wire;

import org.jspecify.annotations.NullMarked;
