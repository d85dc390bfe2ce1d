import type { ExportColumn } from '../../platform/export/xlsx-export.js';
import type { ExportRecord } from './batch.repository.js';

/** Columns of exportDistributeDetail: one row per park; checks and money summed in the total row. */
export function detailExportColumns(period: string, cardModelName: string): ExportColumn<ExportRecord>[] {
  return [
    { header: '期间', kind: 'text', width: 10, value: () => period },
    { header: '卡型', kind: 'text', width: 18, value: () => cardModelName },
    { header: '景区ID', kind: 'integer', width: 10, value: (r) => r.parkId },
    { header: '景区名称', kind: 'text', width: 28, value: (r) => r.parkName },
    { header: '核销次数', kind: 'integer', width: 12, value: (r) => r.checkNum, total: true },
    { header: '分配比例(%)', kind: 'decimal', width: 12, value: (r) => r.distributePercent },
    { header: '分配金额(元)', kind: 'money', width: 16, value: (r) => r.distributeAmount, total: true },
  ];
}
