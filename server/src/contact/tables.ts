export interface ContactInquiryTable {
  id: string;
  name: string;
  email: string;
  company: string;
  message: string;
  /** The signed-in account that sent it, if any. */
  user_id: string | null;
  ip: string | null;
  created_at: number;
}

export interface ContactTables {
  contact_inquiries: ContactInquiryTable;
}
