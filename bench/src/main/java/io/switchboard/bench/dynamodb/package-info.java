/**
 * The DynamoDB entry ({@code bench/run.sh dynamodb}): the requests and capacity units a message
 * costs on the DynamoDB store, beside the seeds' own DynamoDB designs, counted by {@link
 * io.switchboard.bench.dynamodb.CapacityMeter} as AWS bills them, on moto run one request at a
 * time. Uses the AWS SDK's DynamoDB client and the store module; nothing here is part of the
 * server.
 */
@NullMarked
package io.switchboard.bench.dynamodb;

import org.jspecify.annotations.NullMarked;
