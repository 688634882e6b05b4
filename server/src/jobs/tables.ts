export interface CronRunTable {
  run_key: string;
  owner: string;
  expires_at: number;
}

export interface JobTables {
  cron_runs: CronRunTable;
}
