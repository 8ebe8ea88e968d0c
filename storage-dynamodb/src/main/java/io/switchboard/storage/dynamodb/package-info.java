/**
 * The Amazon DynamoDB store's table ({@link io.switchboard.storage.dynamodb.StoreTable}): one table
 * per store, keyed by two strings, on-demand capacity, with a time-to-live attribute for clean-up
 * only ({@code docs/design.md}, "Amazon DynamoDB as a store").
 */
@NullMarked
package io.switchboard.storage.dynamodb;

import org.jspecify.annotations.NullMarked;
