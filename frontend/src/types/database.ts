/**
 * The public schema as supabase-js sees it, for `createClient<Database>`: a misspelt table,
 * column or procedure, or a wrong argument, fails `tsc` instead of failing at run time.
 *
 * Hand-written to mirror sql/migrations/*.up.sql (000003 tables, 000005/000008 procedures,
 * 000004 validate_invite_code); it covers only what the app uses. It keeps the shape that
 * `supabase gen types typescript` emits, so generated output can replace it. Two deliberate
 * differences from generated output: procedure arguments that the app sends as an explicit
 * SQL NULL are typed `| null`, and bigint columns are `number` (ids stay below 2^53).
 */

export type Json = string | number | boolean | null | { [key: string]: Json | undefined } | Json[]

type Relationship<Name extends string, Column extends string, Referenced extends string> = {
  foreignKeyName: Name
  columns: [Column]
  isOneToOne: false
  referencedRelation: Referenced
  referencedColumns: ['id']
}

/** Rows of get_all_filtered_labels_by_listen_status and get_filtered_labels_by_listen_status. */
type LabelWithStatusRow = { id: number; label_name: string; label_url: string; tags: string[]; is_fully_checked: boolean }
/** Rows of get_followed_labels and get_unfollowed_labels. */
type LabelRow = { id: number; label_name: string; label_url: string; tags: string[] }
/** Rows of get_latest_releases_per_label. */
type ReleaseRow = {
  id: number
  label_id: number
  title: string
  artist: string
  release_url: string
  release_date: string | null
  image_url: string | null
  genres: string[]
  rich: boolean
}
/** Rows of get_latest_releases and get_random_releases: a release with the caller's listen flag and its label. */
type ReleaseWithLabelRow = ReleaseRow & { listened: boolean; labels: Json }

/** The filters shared by the Labels page's list and count procedures. */
type LabelFilterArgs = {
  user_id_param: string
  letter_filter?: string | null
  tag_filter?: string | null
  search_term?: string | null
}

export type Database = {
  public: {
    Tables: {
      labels: {
        Row: {
          id: number
          label_name: string
          label_url: string
          tags: string[]
          created_at: string
          updated_at: string
          crawled_at: string | null
        }
        Insert: {
          id?: number
          label_name: string
          label_url: string
          tags?: string[]
          created_at?: string
          updated_at?: string
          crawled_at?: string | null
        }
        Update: Partial<Database['public']['Tables']['labels']['Insert']>
        Relationships: []
      }
      releases: {
        Row: ReleaseRow & { random_key: number; created_at: string; updated_at: string }
        Insert: {
          id?: number
          label_id: number
          title: string
          artist?: string
          release_url: string
          release_date?: string | null
          image_url?: string | null
          genres?: string[]
          rich?: boolean
          random_key?: number
          created_at?: string
          updated_at?: string
        }
        Update: Partial<Database['public']['Tables']['releases']['Insert']>
        Relationships: [Relationship<'releases_label_id_fkey', 'label_id', 'labels'>]
      }
      user_follow_labels: {
        Row: { id: number; user_id: string; label_id: number; created_at: string }
        Insert: { id?: number; user_id?: string; label_id: number; created_at?: string }
        Update: Partial<Database['public']['Tables']['user_follow_labels']['Insert']>
        Relationships: [Relationship<'user_follow_labels_label_id_fkey', 'label_id', 'labels'>]
      }
      user_listened_releases: {
        Row: { id: number; user_id: string; release_id: number; created_at: string }
        Insert: { id?: number; user_id?: string; release_id: number; created_at?: string }
        Update: Partial<Database['public']['Tables']['user_listened_releases']['Insert']>
        Relationships: [Relationship<'user_listened_releases_release_id_fkey', 'release_id', 'releases'>]
      }
      labels_to_add: {
        Row: {
          id: number
          label_url: string
          is_processed: boolean
          is_valid: boolean
          user_id: string | null
          created_at: string
          processed_at: string | null
          attempts: number
          last_attempt_at: string | null
          error: string | null
          label_id: number | null
        }
        Insert: {
          id?: number
          label_url: string
          is_processed?: boolean
          is_valid?: boolean
          user_id?: string | null
          created_at?: string
          processed_at?: string | null
          attempts?: number
          last_attempt_at?: string | null
          error?: string | null
          label_id?: number | null
        }
        Update: Partial<Database['public']['Tables']['labels_to_add']['Insert']>
        Relationships: [Relationship<'labels_to_add_label_id_fkey', 'label_id', 'labels'>]
      }
    }
    Views: { [_ in never]: never }
    Functions: {
      validate_invite_code: { Args: { code_param: string }; Returns: Json }
      get_all_filtered_labels_by_listen_status: {
        Args: { user_id_param: string; filter_type: string }
        Returns: LabelWithStatusRow[]
      }
      count_filtered_labels_by_listen_status: {
        Args: { user_id_param: string; filter_type: string; search_term?: string | null }
        Returns: number
      }
      get_filtered_labels_by_listen_status: {
        Args: { user_id_param: string; filter_type: string; page_number: number; items_per_page: number; search_term?: string | null }
        Returns: LabelWithStatusRow[]
      }
      get_latest_releases_per_label: { Args: { p_label_ids: number[]; p_limit: number }; Returns: ReleaseRow[] }
      get_followed_labels: { Args: LabelFilterArgs & { page_number: number; items_per_page: number }; Returns: LabelRow[] }
      get_unfollowed_labels: { Args: LabelFilterArgs & { page_number: number; items_per_page: number }; Returns: LabelRow[] }
      count_followed_labels: { Args: LabelFilterArgs; Returns: number }
      count_unfollowed_labels: { Args: LabelFilterArgs; Returns: number }
      get_random_releases: {
        Args: {
          user_id: string
          label_ids?: number[] | null
          exclude_ids?: number[] | null
          num_releases?: number
          genre_filters?: string[] | null
          time_range_days?: number
        }
        Returns: ReleaseWithLabelRow[]
      }
      get_latest_releases: {
        Args: { user_id: string; label_ids?: number[] | null; page_size?: number; page?: number }
        Returns: ReleaseWithLabelRow[]
      }
    }
    Enums: { [_ in never]: never }
    CompositeTypes: { [_ in never]: never }
  }
}
